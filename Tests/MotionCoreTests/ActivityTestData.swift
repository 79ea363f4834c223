#if canImport(Glibc)
import Glibc
#endif
import MotionCore

/// Finds `../shared` (or `../../shared` from a git worktree) and reads recordings without the Sensors module.
enum ActivityTestData {
    static var root: String? {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        let root = parts.joined(separator: "/")
        for candidate in [root + "/../shared", root + "/../../shared"] {
            var st = stat()
            if stat(candidate + "/data/activity", &st) == 0 { return candidate }
        }
        return nil
    }

    struct ReadError: Error, CustomStringConvertible { var description: String }

    /// (t_s, specific force m/s²) rows of a shared-schema CSV (`.csv.gz` through `gzip -dc`).
    static func readAccelerometer(_ path: String) throws -> [(Double, Vector3)] {
        var rows: [(Double, Vector3)] = []
        var values = [0.0, 0.0, 0.0, 0.0]
        // t_s,ax,ay,az,…: four numbers separated by commas.
        try forEachDataRow(path) { line in
            guard leadingNumbers(line, into: &values, commaAfterLast: false) == 4 else { return }
            rows.append((values[0], Vector3(values[1], values[2], values[3])))
        }
        return rows
    }

    /// (t_s, specific force m/s², rotation rate rad/s or `nil`) rows of a shared-schema CSV
    /// (t_s,ax,ay,az,gx,gy,gz,…; the gyroscope columns empty when the recording has none).
    static func readIMU(_ path: String) throws -> [(Double, Vector3, Vector3?)] {
        var rows: [(Double, Vector3, Vector3?)] = []
        var values = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
        try forEachDataRow(path) { line in
            let count = leadingNumbers(line, into: &values, commaAfterLast: true)
            guard count >= 4 else { return }
            let gyro = count == 7 ? Vector3(values[4], values[5], values[6]) : nil
            rows.append((values[0], Vector3(values[1], values[2], values[3]), gyro))
        }
        return rows
    }

    /// Calls `body` with every line of `path` after the header (`.gz` through `gzip -dc`).
    private static func forEachDataRow(_ path: String, _ body: (UnsafeMutablePointer<CChar>) -> Void) throws {
        let gz = path.hasSuffix(".gz")
        guard access(path, R_OK) == 0, let file = gz ? popen("gzip -dc '\(path)'", "r") : fopen(path, "r") else {
            throw ReadError(description: "cannot open \(path)")
        }
        defer { if gz { pclose(file) } else { fclose(file) } }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        var header = true
        while getline(&line, &capacity, file) > 0 {
            guard let line else { break }
            if header { header = false; continue }
            body(line)
        }
        free(line)
    }

    /// Reads up to `values.count` comma-separated numbers from the start of `line` (strtod: fast in
    /// debug builds too), stopping at a field that is not a number or not followed by a comma (the
    /// last one needs no comma unless `commaAfterLast`). Returns how many it read.
    private static func leadingNumbers(_ line: UnsafeMutablePointer<CChar>, into values: inout [Double], commaAfterLast: Bool) -> Int {
        var p = line
        for k in 0..<values.count {
            var end: UnsafeMutablePointer<CChar>?
            values[k] = strtod(p, &end)
            guard let e = end, e != p else { return k }
            if k == values.count - 1 && !commaAfterLast { return k + 1 }
            guard e.pointee == 44 /* , */ else { return k }
            p = e + 1
        }
        return values.count
    }

    /// (file, placement, ground-truth steps) of oxford_steps/manifest.tsv.
    static func oxfordManifest(_ path: String) throws -> [(file: String, placement: String, steps: Int)] {
        guard let file = fopen(path, "r") else { throw ReadError(description: "cannot open \(path)") }
        defer { fclose(file) }
        var out: [(file: String, placement: String, steps: Int)] = []
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        var columns: [String] = []
        while getline(&line, &capacity, file) > 0 {
            guard let line else { break }
            let fields = String(cString: line).split(separator: "\t", omittingEmptySubsequences: false)
                .map { String($0.filter { $0 != "\n" && $0 != "\r" }) }
            if columns.isEmpty { columns = fields; continue }
            guard let fi = columns.firstIndex(of: "file"), let pi = columns.firstIndex(of: "placement"),
                  let si = columns.firstIndex(of: "gt_steps"), fields.count == columns.count, let steps = Int(fields[si]) else {
                throw ReadError(description: "\(path): unexpected row \(fields)")
            }
            out.append((fields[fi], fields[pi], steps))
        }
        free(line)
        return out
    }
}
