#if canImport(Glibc)
import Glibc
#endif
import Platform
import EdgeMotion
import MotionCore
import Sensors

/// `edgemotion fusion`: runs the attitude filter over a recording as fast as possible and writes
/// the orientation per sample in the scorer's format (`t_s,qw,qx,qy,qz`, sensor → ENU).
struct FusionCommand: Command {
    let name = "fusion"
    let summary = "run the attitude filter over a recording, write t_s,qw,qx,qy,qz"
    let usage = """
        usage: edgemotion fusion --input TRIAL.csv[.gz]|.emr --output OUT.csv [--mode 9d|6d] [--config FILE]
                                 [--filter robust|complementary] [--repeat N]

        Reads a recording in the shared CSV schema (t_s, gx,gy,gz rad/s, ax,ay,az m/s², mx,my,mz µT),
        runs the filter on every row and writes one line per row: t_s,qw,qx,qy,qz, the sensor → earth
        quaternion (ENU, scalar first). --mode 9d (default) uses the magnetometer and writes the
        north-referenced quaternion; --mode 6d feeds no magnetometer and writes the 6D quaternion
        (arbitrary heading).

          --config FILE   filter parameters, one `name = value` per line (# comments); names are those
                          of RobustAttitudeFilterParameters, e.g. tauAcc = 3
          --filter NAME   robust (default) or complementary (the first, simpler filter)
          --repeat N      run the filter N times and report the fastest (for benchmarks)

        Prints to standard error: samples, mode and the filter's cost in ns per sample (filter only,
        reading and writing excluded). --output - writes to standard output.

        example:
          edgemotion fusion --input /tmp/cal-gyro/rec-20261130T093113Z-232011.emr --output q.csv --mode 6d

        exit status: 0 written; 64 usage; 65 a bad parameter file or a recording without a gyroscope;
        66 the recording cannot be read; 73 the output cannot be written.
        """

    func run(arguments: [String]) -> Int32 {
        guard let options = OptionScanner(command: name, arguments: arguments,
                                          valued: ["--input", "--output", "--mode", "--config", "--filter", "--repeat"],
                                          usage: usage) else { return 64 }
        guard options.positional.isEmpty else {
            printError("edgemotion fusion: unexpected argument '\(options.positional[0])'. Run 'edgemotion fusion --help'.")
            return 64
        }
        let input = options["--input"], output = options["--output"], configPath = options["--config"]
        let mode = options["--mode"] ?? "9d"
        let filterName = options["--filter"] ?? "robust"
        let repeats = options["--repeat"].map { Int($0) ?? 0 } ?? 1
        guard let input, let output else {
            printError("edgemotion fusion: --input and --output are required. Run 'edgemotion fusion --help'.")
            return 64
        }
        guard mode == "9d" || mode == "6d" else {
            printError("edgemotion fusion: --mode must be 9d or 6d, not '\(mode)'.")
            return 64
        }
        guard repeats >= 1 else {
            printError("edgemotion fusion: --repeat needs a positive whole number.")
            return 64
        }
        var parameters = RobustAttitudeFilterParameters()
        if let configPath {
            do { parameters = try FusionParameterFile.load(path: configPath) } catch {
                printError("edgemotion fusion: \(error)")
                return 65
            }
        }
        let recording: FusionRecording
        do { recording = try FusionRecording(path: input) } catch {
            printError("edgemotion fusion: \(error)")
            return 66
        }
        let useMagnetometer = mode == "9d"
        guard !useMagnetometer || recording.hasMagnetometer else {
            printError("edgemotion fusion: \(input) has no mx,my,mz columns; use --mode 6d.")
            return 65
        }
        var best = UInt64.max
        var quaternions: [Quaternion] = []
        for _ in 0..<repeats {
            let (q, ns): ([Quaternion], UInt64)
            switch filterName {
            case "robust":
                (q, ns) = recording.run(RobustAttitudeFilter(samplePeriod: recording.samplePeriod, parameters: parameters),
                                        useMagnetometer: useMagnetometer)
            case "complementary":
                (q, ns) = recording.run(ComplementaryFilter(samplePeriod: recording.samplePeriod), useMagnetometer: useMagnetometer)
            default:
                printError("edgemotion fusion: --filter must be robust or complementary, not '\(filterName)'.")
                return 64
            }
            best = min(best, ns)
            quaternions = q
        }
        do { try recording.write(quaternions, to: output) } catch {
            printError("edgemotion fusion: \(error)")
            return 73
        }
        let perSample = Double(best) / Double(max(1, recording.count))
        printError("fusion: \(recording.count) samples, \(mode), \(filterName), \(Int(perSample.rounded())) ns/sample (filter only, best of \(repeats))")
        return 0
    }
}

/// A recording held in memory as flat arrays, so the filter loop measures only the filter.
struct FusionRecording {
    var time: [Double] = []
    var gyroscope: [Vector3] = []
    var accelerometer: [Vector3] = []
    var magnetometer: [Vector3] = []
    var hasMagnetometer = false
    /// Median of the first intervals, s.
    var samplePeriod = 0.01
    var count: Int { time.count }

    /// Turns board-axis readings back into chip axes (`Rᵀ·v` per sensor of `mount`).
    mutating func toChipAxes(_ mount: IMUMount) {
        let r = mount.inertial.matrix.transposed, q = mount.magnetometer.matrix.transposed
        for k in time.indices {
            gyroscope[k] = r * gyroscope[k]
            accelerometer[k] = r * accelerometer[k]
            if hasMagnetometer, k < magnetometer.count { magnetometer[k] = q * magnetometer[k] }
        }
    }

    /// Reads a `.emr` recording (`edgemotion record`) or a CSV in the shared schema.
    init(path: String) throws(SensorError) {
        if path.hasSuffix(".emr") {
            try self.init(emr: path)
        } else {
            try self.init(csv: path)
        }
        guard time.count >= 2 else {
            throw SensorError(.invalidData, subject: path, detail: "fewer than two samples")
        }
        var d: [Double] = []
        for k in 1..<min(time.count, 201) { d.append(time[k] - time[k - 1]) }
        d.sort()
        samplePeriod = d[d.count / 2]
        guard samplePeriod > 0 else {
            throw SensorError(.invalidData, subject: path, detail: "t_s does not increase")
        }
    }

    private init(emr path: String) throws(SensorError) {
        let reader: RecordingFileReader
        do { reader = try RecordingFileReader(path: path) } catch {
            throw SensorError(.invalidData, subject: path, detail: "\(error)")
        }
        var first: UInt64?
        while let s = reader.next() {
            guard s.contents.contains(.gyroscope) else {
                throw SensorError(.invalidData, subject: path, detail: "no gyroscope samples: the attitude filter needs a gyroscope")
            }
            let t0 = first ?? s.timestampNanos
            first = t0
            time.append(Double(Int64(bitPattern: s.timestampNanos &- t0)) * 1e-9)
            gyroscope.append(s.rotationRate)
            accelerometer.append(s.specificForce)
            let hasMag = s.contents.contains(.magnetometer)
            hasMagnetometer = hasMagnetometer || hasMag
            magnetometer.append(hasMag ? s.magneticField : .zero)
        }
    }

    private init(csv path: String) throws(SensorError) {
        let reader = try RecordingReader(path: path)
        guard reader.hasGyroscope else {
            throw SensorError(.invalidData, subject: path, detail: "no gx,gy,gz columns: the attitude filter needs a gyroscope")
        }
        hasMagnetometer = reader.hasMagnetometer
        var progress = ProgressLine("reading \(path)", unit: "rows")
        defer { progress.finish() }
        while let row = try reader.next() {
            if time.count & 0xFFF == 0 { progress.update(time.count) }
            guard let g = row.rotationRate else {
                throw SensorError(.invalidData, subject: "\(path):\(row.line)", detail: "gyroscope value missing (nan or empty)")
            }
            time.append(row.time)
            gyroscope.append(g)
            accelerometer.append(row.specificForce)
            magnetometer.append(row.magneticField ?? .zero)
        }
    }

    /// Drops every sample later than `seconds` after the first.
    mutating func keepFirst(seconds: Double) {
        guard let start = time.first else { return }
        let n = time.firstIndex { $0 - start > seconds } ?? time.count
        time.removeSubrange(n...)
        gyroscope.removeSubrange(n...)
        accelerometer.removeSubrange(n...)
        magnetometer.removeSubrange(n...)
    }

    /// Runs `filter` over every sample; returns the per-sample output and the loop's time in ns.
    func run<F: AttitudeFilter>(_ filter: F, useMagnetometer: Bool) -> ([Quaternion], UInt64) {
        var f = filter
        let n = count
        var out = [Quaternion](repeating: .identity, count: n)
        let start = MonotonicClock.nowNanos()
        time.withUnsafeBufferPointer { t in
            gyroscope.withUnsafeBufferPointer { g in
                accelerometer.withUnsafeBufferPointer { a in
                    magnetometer.withUnsafeBufferPointer { m in
                        out.withUnsafeMutableBufferPointer { o in
                            var previous = t[0] - samplePeriod
                            for k in 0..<n {
                                var dt = t[k] - previous
                                if !(dt > 0 && dt < 10 * samplePeriod) { dt = samplePeriod }
                                previous = t[k]
                                let mag: Vector3? = useMagnetometer && m[k].normSquared > 0 ? m[k] : nil
                                f.update(gyroscope: g[k], accelerometer: a[k], magnetometer: mag, dt: dt)
                                let s = f.output
                                o[k] = useMagnetometer ? s.quaternion9D : s.quaternion6D
                            }
                        }
                    }
                }
            }
        }
        return (out, MonotonicClock.nowNanos() - start)
    }

    /// Writes `t_s,qw,qx,qy,qz` lines to `path` (`-` = standard output).
    func write(_ q: [Quaternion], to path: String) throws(SensorError) {
        var text = "t_s,qw,qx,qy,qz\n"
        text.reserveCapacity(64 * q.count)
        for k in 0..<q.count {
            text += "\(time[k]),\(q[k].w),\(q[k].x),\(q[k].y),\(q[k].z)\n"
        }
        let file: UnsafeMutablePointer<FILE>? = path == "-" ? fdopen(1, "w") : fopen(path, "w")
        guard let file else {
            throw SensorError(.io, subject: path, detail: "cannot open for writing: \(Errno.current.text); check the directory exists and is writable")
        }
        let written = text.utf8CString.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count - 1, file) }
        let ok = written == text.utf8.count
        if path == "-" { fflush(file) } else { fclose(file) }
        guard ok else {
            throw SensorError(.io, subject: path, detail: "short write (disk full?)")
        }
    }
}

/// Reads filter parameters from a `name = value` file (also `name: value`; `#` starts a comment).
enum FusionParameterFile {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func load(path: String) throws(Failure) -> RobustAttitudeFilterParameters {
        guard let f = fopen(path, "r") else {
            throw Failure(description: "\(path): cannot open: \(Errno.current.text)")
        }
        defer { fclose(f) }
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n <= 0 { break }
            text += chunk[0..<n]
        }
        var p = RobustAttitudeFilterParameters()
        for (index, raw) in String(decoding: text, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(raw)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let trimmed = line.trimmingWhitespace
            if trimmed.isEmpty { continue }
            guard let sep = trimmed.firstIndex(where: { $0 == "=" || $0 == ":" }) else {
                throw Failure(description: "\(path):\(index + 1): expected 'name = value', got '\(trimmed)'")
            }
            let key = String(trimmed[..<sep].trimmingWhitespace)
            let valueText = trimmed[trimmed.index(after: sep)...].trimmingWhitespace
            let value: Double
            switch valueText {
            case "true": value = 1
            case "false": value = 0
            default:
                guard let v = Double(valueText) else {
                    throw Failure(description: "\(path):\(index + 1): '\(key)': '\(valueText)' is not a number")
                }
                value = v
            }
            guard p.set(key, value) else {
                throw Failure(description: "\(path):\(index + 1): unknown parameter '\(key)'; known: \(RobustAttitudeFilterParameters.names.joined(separator: ", "))")
            }
        }
        return p
    }
}

extension Substring {
    var trimmingWhitespace: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" || c == "\r" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" { s.removeLast() }
        return s
    }
}
