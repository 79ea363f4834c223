import MotionCore

/// One row of a recording in the shared CSV schemas (`../shared/data/fusion`,
/// `../shared/data/activity`), in SI units and the sensor frame.
public struct RecordingRow: Sendable {
    /// Seconds since the start of the recording (`t_s`).
    public var time: Double
    /// Specific force in m/s² (`ax,ay,az`; +g on the up axis at rest).
    public var specificForce: Vector3
    /// Rotation rate in rad/s (`gx,gy,gz`), `nil` when the recording has no gyroscope.
    public var rotationRate: Vector3?
    /// Magnetic field in µT (`mx,my,mz`), `nil` when absent.
    public var magneticField: Vector3?
    /// Ground-truth orientation, sensor → ENU (`qw,qx,qy,qz`), `nil` when absent or `nan`.
    public var truth: Quaternion?
    /// Whether the row is in a scored motion phase (`movement`), when the column exists.
    public var movement: Bool?
    /// Activity label (`label`), when the column exists.
    public var label: String?
    /// 1-based line number in the file (the header is line 1).
    public var line: Int
}

/// Streams the rows of a recording CSV (plain or gzip), matching columns by header name.
///
/// Required columns: `t_s`, `ax`, `ay`, `az`. Optional: `gx,gy,gz`, `mx,my,mz`,
/// `qw,qx,qy,qz`, `movement`, `label`. Unknown columns are ignored. Numbers are parsed without
/// regard to locale. A malformed value is an error naming `file:line` and the column.
public final class RecordingReader {
    public let path: String
    /// Column names in file order.
    public private(set) var columns: [String] = []
    /// Whether the file has gyroscope / magnetometer / ground-truth / label columns.
    public private(set) var hasGyroscope = false
    public private(set) var hasMagnetometer = false
    public private(set) var hasTruth = false
    public private(set) var hasLabels = false

    private let file: CompressedFile
    private var buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    private var atEOF = false
    private var lineNumber = 0
    private var index: [Field: Int] = [:]
    private var fieldStarts: [Int] = []
    private var fieldEnds: [Int] = []
    private var lastLabelBytes: [UInt8] = []
    private var lastLabel: String?

    private enum Field: CaseIterable {
        case t, ax, ay, az, gx, gy, gz, mx, my, mz, qw, qx, qy, qz, movement, label
        var name: String {
            switch self {
            case .t: "t_s"
            case .ax: "ax"
            case .ay: "ay"
            case .az: "az"
            case .gx: "gx"
            case .gy: "gy"
            case .gz: "gz"
            case .mx: "mx"
            case .my: "my"
            case .mz: "mz"
            case .qw: "qw"
            case .qx: "qx"
            case .qy: "qy"
            case .qz: "qz"
            case .movement: "movement"
            case .label: "label"
            }
        }
    }

    /// Largest |t_s| accepted, s (Unix seconds fit; nanoseconds of it fit a UInt64).
    public static let largestTime = 1e10

    /// Opens `path` and reads its header.
    public init(path: String) throws(SensorError) {
        self.path = path
        file = try CompressedFile(path: path)
        buffer = .allocate(byteCount: 1 << 17, alignment: 8)
        guard try readHeader() else {
            throw SensorError(.invalidData, subject: path, detail: "the file is empty; expected a CSV header such as t_s,ax,ay,az,…")
        }
    }

    deinit { buffer.deallocate() }

    private func readHeader() throws(SensorError) -> Bool {
        guard let (s, e) = try nextLine() else { return false }
        splitFields(s, e)
        var names: [String] = []
        for k in 0..<fieldStarts.count {
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[fieldStarts[k]..<fieldEnds[k]])
            var name = String(decoding: bytes, as: UTF8.self)
            name.removeAll { $0 == " " || $0 == "\r" || $0 == "\u{FEFF}" }
            names.append(name)
        }
        columns = names
        for f in Field.allCases {
            if let i = names.firstIndex(of: f.name) { index[f] = i }
        }
        for required in [Field.t, .ax, .ay, .az] where index[required] == nil {
            throw SensorError(.invalidData, subject: "\(path):1",
                              detail: "missing column '\(required.name)'; the header must name t_s, ax, ay, az (found: \(names.joined(separator: ",")))")
        }
        hasGyroscope = index[.gx] != nil && index[.gy] != nil && index[.gz] != nil
        hasMagnetometer = index[.mx] != nil && index[.my] != nil && index[.mz] != nil
        hasTruth = index[.qw] != nil && index[.qx] != nil && index[.qy] != nil && index[.qz] != nil
        hasLabels = index[.label] != nil
        return true
    }

    /// The next row, or `nil` at the end of the file. Blank lines are skipped.
    public func next() throws(SensorError) -> RecordingRow? {
        while true {
            guard let (s, e) = try nextLine() else { return nil }
            if e == s || (e - s == 1 && buffer[s] == 0x0D) { continue }
            splitFields(s, e)
            return try parseRow()
        }
    }

    /// Reads every remaining row (convenience for tools and tests; allocates the array).
    public func readAll() throws(SensorError) -> [RecordingRow] {
        var rows: [RecordingRow] = []
        while let r = try next() { rows.append(r) }
        return rows
    }

    private func parseRow() throws(SensorError) -> RecordingRow {
        func number(_ f: Field) throws(SensorError) -> Double {
            guard let i = index[f] else { return .nan }
            guard i < fieldStarts.count else {
                throw SensorError(.invalidData, subject: "\(path):\(lineNumber)",
                                  detail: "row has \(fieldStarts.count) fields but column '\(f.name)' is number \(i + 1)")
            }
            let raw = UnsafeRawBufferPointer(rebasing: buffer[fieldStarts[i]..<fieldEnds[i]])
            guard let v = DecimalParser.parse(raw.assumingMemoryBound(to: UInt8.self)) else {
                let text = String(decoding: raw, as: UTF8.self)
                throw SensorError(.invalidData, subject: "\(path):\(lineNumber)",
                                  detail: "column '\(f.name)': '\(text)' is not a number")
            }
            return v
        }
        /// The field's text as written (for messages).
        func text(_ f: Field) -> String {
            guard let i = index[f], i < fieldStarts.count else { return "" }
            return String(decoding: UnsafeRawBufferPointer(rebasing: buffer[fieldStarts[i]..<fieldEnds[i]]), as: UTF8.self)
        }
        func optionalNumber(_ f: Field) throws(SensorError) -> Double? {
            guard let i = index[f], i < fieldStarts.count, fieldEnds[i] > fieldStarts[i] else { return nil }
            let v = try number(f)
            return v.isNaN ? nil : v
        }
        let t = try number(.t)
        // A time every consumer can hold as nanoseconds (±1e10 s: Unix seconds fit) and finite
        // accelerations: a NaN or 1e300 here reached the activity detector's bins and the replay
        // clock as a trap.
        guard t.isFinite, abs(t) <= Self.largestTime else {
            throw SensorError(.invalidData, subject: "\(path):\(lineNumber)",
                              detail: "column 't_s': '\(text(.t))' is not a time in seconds (finite, within ±1e10)")
        }
        let acc = Vector3(try number(.ax), try number(.ay), try number(.az))
        guard acc.x.isFinite, acc.y.isFinite, acc.z.isFinite else {
            throw SensorError(.invalidData, subject: "\(path):\(lineNumber)",
                              detail: "columns 'ax,ay,az': '\(text(.ax))','\(text(.ay))','\(text(.az))' is not a finite specific force")
        }
        var row = RecordingRow(time: t, specificForce: acc, rotationRate: nil, magneticField: nil,
                               truth: nil, movement: nil, label: nil, line: lineNumber)
        if hasGyroscope, let x = try optionalNumber(.gx), let y = try optionalNumber(.gy), let z = try optionalNumber(.gz) {
            row.rotationRate = Vector3(x, y, z)
        }
        if hasMagnetometer, let x = try optionalNumber(.mx), let y = try optionalNumber(.my), let z = try optionalNumber(.mz) {
            row.magneticField = Vector3(x, y, z)
        }
        if hasTruth, let w = try optionalNumber(.qw), let x = try optionalNumber(.qx),
           let y = try optionalNumber(.qy), let z = try optionalNumber(.qz) {
            row.truth = Quaternion(w: w, x: x, y: y, z: z)
        }
        if let m = try optionalNumber(.movement) { row.movement = m != 0 }
        if let i = index[.label], i < fieldStarts.count {
            let raw = UnsafeRawBufferPointer(rebasing: buffer[fieldStarts[i]..<fieldEnds[i]])
            if raw.elementsEqual(lastLabelBytes), let l = lastLabel {
                row.label = l
            } else {
                let l = String(decoding: raw, as: UTF8.self)
                lastLabelBytes = Array(raw)
                lastLabel = l
                row.label = l
            }
        }
        return row
    }

    private func splitFields(_ s: Int, _ e: Int) {
        fieldStarts.removeAll(keepingCapacity: true)
        fieldEnds.removeAll(keepingCapacity: true)
        var fieldStart = s
        var i = s
        var lineEnd = e
        if lineEnd > s, buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
        while i < lineEnd {
            if buffer[i] == UInt8(ascii: ",") {
                fieldStarts.append(fieldStart)
                fieldEnds.append(i)
                fieldStart = i + 1
            }
            i += 1
        }
        fieldStarts.append(fieldStart)
        fieldEnds.append(lineEnd)
    }

    /// Returns the byte range of the next line (without its newline) inside `buffer`.
    private func nextLine() throws(SensorError) -> (Int, Int)? {
        while true {
            var i = start
            while i < end {
                if buffer[i] == 0x0A {
                    let line = (start, i)
                    start = i + 1
                    lineNumber += 1
                    return line
                }
                i += 1
            }
            if atEOF {
                guard start < end else { return nil }
                let line = (start, end)
                start = end
                lineNumber += 1
                return line
            }
            // Move the partial line to the front and refill.
            let pending = end - start
            if start > 0, pending > 0 {
                buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: pending)
            }
            start = 0
            end = pending
            if end == buffer.count {
                let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.count * 2, alignment: 8)
                bigger.baseAddress!.copyMemory(from: buffer.baseAddress!, byteCount: end)
                buffer.deallocate()
                buffer = bigger
            }
            let n = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[end...]))
            if n == 0 { atEOF = true }
            end += n
        }
    }
}
