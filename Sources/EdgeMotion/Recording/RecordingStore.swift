import MotionCore
#if canImport(Glibc)
import Glibc
#endif
import Platform

/// One recording file in a store, as `edgemotion recordings list` shows it.
public struct RecordingFileInfo: Sendable {
    public var path: String
    public var name: String
    public var bytes: Int
    /// UTC ns of the first and last intact sample (`nil` for an empty file).
    public var firstUTCNanos: Int64?
    public var lastUTCNanos: Int64?
    public var samples: Int
    public var rateHz: Double?
    public var tornTail: Bool
    /// Damaged blocks inside the file, skipped (`RecordingFileReader.damagedBlocks`).
    public var damagedBlocks = 0
    /// Not even the file header could be read (not a recording, damaged, or not a regular file).
    public var unreadable = false
    /// Last modification, UTC ns (for age-based removal of unreadable files).
    public var modifiedUTCNanos: Int64
    /// The header's `sensors` (`accelerometer`, `gyroscope`, `magnetometer`); empty when unreadable.
    public var sensors: [String] = []
    /// The header's `source` (e.g. `simulator`, `iio:mpu6050`), if readable.
    public var source: String?
    /// The recorder is still writing this file (set by `RecordingCatalog`): its last second is not
    /// in it yet, and a `tornTail` may only be a block being written.
    public var isBeingWritten = false

    /// Samples per second between the first and last sample (`nil` with fewer than two samples).
    public var measuredRateHz: Double? {
        guard samples > 1, let a = firstUTCNanos, let b = lastUTCNanos, b > a else { return nil }
        return Double(samples - 1) / (Double(b - a) * 1e-9)
    }
}

/// The recordings directory (`<state_directory>/recordings` by default): names new files,
/// lists them oldest first and enforces `RecordingLimits`.
///
/// Files are named `rec-<UTC yyyymmddThhmmssZ>-<µs>.emr`, so name order is time order.
public struct RecordingStore: Sendable {
    public let directory: String
    public let limits: RecordingLimits

    public init(directory: String, limits: RecordingLimits = RecordingLimits()) {
        self.directory = directory
        self.limits = limits
    }

    /// Creates the directory (and missing parents) if needed.
    public func prepare() throws(RecordingError) {
        var path = directory.hasPrefix("/") ? "" : "."
        for part in directory.split(separator: "/") {
            path += "/" + part
            if mkdir(path, 0o750) != 0 && errno != EEXIST {
                throw RecordingError.system(path, "create the recordings directory")
            }
        }
    }

    /// A new file path for a recording starting at `utcNanos`.
    /// Never an existing file: the time is advanced by 1 µs until the name is free.
    public func newFilePath(utcNanos: Int64) -> String {
        var t = utcNanos
        while true {
            let path = directory + "/" + Self.fileName(utcNanos: t)
            if access(path, F_OK) != 0 { return path }
            t += 1000
        }
    }

    static func fileName(utcNanos: Int64) -> String {
        let micros = String((utcNanos / 1000) % 1_000_000)
        let msText = String(repeating: "0", count: 6 - micros.count) + micros
        return "rec-\(RFC3339.basicStamp(unixSeconds: utcNanos / 1_000_000_000))-\(msText).\(RecordingFormat.fileExtension)"
    }

    /// The UTC time (ns) a file's name says its first sample was taken, or nil.
    static func startUTCNanos(ofFile path: String) -> Int64? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let u = Array(name.utf8)
        // rec-YYYYMMDDThhmmssZ-uuuuuu.emr
        guard u.count >= 26, name.hasPrefix("rec-"), u[12] == UInt8(ascii: "T"), u[19] == UInt8(ascii: "Z") else { return nil }
        func number(_ from: Int, _ count: Int) -> Int32? {
            var v: Int32 = 0
            for c in u[from..<from + count] {
                guard c >= 48, c <= 57 else { return nil }
                v = v * 10 + Int32(c - 48)
            }
            return v
        }
        guard let y = number(4, 4), let mo = number(8, 2), let d = number(10, 2), let h = number(13, 2),
              let mi = number(15, 2), let sec = number(17, 2), let us = number(21, 6) else { return nil }
        var parts = tm()
        parts.tm_year = y - 1900
        parts.tm_mon = mo - 1
        parts.tm_mday = d
        parts.tm_hour = h
        parts.tm_min = mi
        parts.tm_sec = sec
        let t = timegm(&parts)
        guard t >= 0 else { return nil }
        return Int64(t) * 1_000_000_000 + Int64(us) * 1000
    }

    /// Recording file paths, oldest first.
    public func files() -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { p in
                p.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.hasPrefix("rec-"), name.hasSuffix("." + RecordingFormat.fileExtension) { names.append(name) }
        }
        return names.sorted().map { directory + "/" + $0 }
    }

    /// Reads every file's summary, oldest first (a damaged file is listed with `tornTail`).
    public func list() -> [RecordingFileInfo] {
        files().map(Self.info)
    }

    /// Summary of one file (reads it through).
    public static func info(path: String) -> RecordingFileInfo {
        var st = stat()
        _ = stat(path, &st)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var info = RecordingFileInfo(path: path, name: name, bytes: Int(st.st_size), samples: 0, tornTail: false,
                                     modifiedUTCNanos: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
        guard let reader = try? RecordingFileReader(path: path) else {
            info.tornTail = true
            info.unreadable = true
            return info
        }
        let offset = reader.header.utcOffsetNanos
        info.rateHz = reader.header.rateHz
        info.sensors = (reader.header["sensors"] ?? "").split(separator: ",").map(String.init)
        info.source = reader.header["source"]
        var first: UInt64?
        var last: UInt64 = 0
        while let s = reader.next() {
            if first == nil { first = s.timestampNanos }
            last = s.timestampNanos
            info.samples += 1
        }
        if let first {
            info.firstUTCNanos = Int64(bitPattern: first) &+ offset
            info.lastUTCNanos = Int64(bitPattern: last) &+ offset
        }
        info.tornTail = reader.tornTail
        info.damagedBlocks = reader.damagedBlocks
        return info
    }

    /// Removes the oldest files until the total size and age limits hold; never removes
    /// `keeping` (the file being written). Returns the removed paths.
    ///
    /// Age is judged by the recorded samples' own times, not by file mtimes against the live
    /// clock (which a wall-clock step moves): a file ends at its last sample's UTC time (read from
    /// the file, only for the oldest files, only when the age limit is set), or, when the file
    /// cannot be read, where the next one begins; each name carries its first sample's UTC time
    /// (`fileName(utcNanos:)`). `nowUTCNanos` is the
    /// newest sample's UTC time under the same mapping. A name that does not parse falls back to
    /// the file's mtime.
    @discardableResult
    public func enforceLimits(nowUTCNanos: Int64, keeping: String? = nil) -> [String] {
        let paths = files()
        var entries: [(path: String, bytes: Int, modified: Int64)] = paths.enumerated().map { i, path in
            var st = stat()
            _ = stat(path, &st)
            let mtime = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
            let end = i + 1 < paths.count ? Self.startUTCNanos(ofFile: paths[i + 1]) : nil
            return (path, Int(st.st_size), end ?? mtime)
        }
        var total = entries.reduce(0) { $0 + $1.bytes }
        var removed: [String] = []
        let maxAgeNanos = Int64(limits.maximumAgeSeconds * 1e9)
        while let oldest = entries.first, oldest.path != keeping {
            // The oldest file's end: its last sample's own UTC time when it can be read (a short
            // recording followed by days of silence ends long before the next file begins).
            let tooOld = limits.maximumAgeSeconds > 0
                && nowUTCNanos - (Self.info(path: oldest.path).lastUTCNanos ?? oldest.modified) > maxAgeNanos
            guard total > limits.maximumTotalBytes || tooOld else { break }
            if unlink(oldest.path) == 0 || errno == ENOENT { removed.append(oldest.path) }
            total -= oldest.bytes
            entries.removeFirst()
        }
        return removed
    }
}
