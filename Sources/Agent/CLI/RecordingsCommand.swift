import EdgeMotion
import MotionCore
#if canImport(Glibc)
import Glibc
#endif
import Platform

/// `edgemotion recordings list|export`: what the recorder kept, and a date range of it as CSV
/// (Core Motion's `CMSensorRecorder.accelerometerData(from:to:)`).
struct RecordingsCommand: Command {
    let name = "recordings"
    let summary = "list recordings, export a time range as CSV"
    let usage = """
    usage: edgemotion recordings list [--config FILE | --state-dir DIR | --dir DIR]
           edgemotion recordings export [--config FILE | --state-dir DIR | --dir DIR] [--from TIME] [--to TIME]
                                        [--format csv] [--output FILE] [FILE.emr…]

    list     one line per file, oldest first: name, first and last sample (UTC), samples, rate,
             size, and a status: 'ok'; 'torn tail' when the file ends in a damaged block
             (power loss while recording: the intact part is still readable); 'N damaged
             blocks' when blocks inside it fail their checks (skipped, the rest is read);
             'unreadable' when even its header is damaged.
    export   every sample between --from and --to (UTC, inclusive) of the given files, or of all
             files in the directory, as CSV in the shared schema
                 t_s,gx,gy,gz,ax,ay,az,mx,my,mz
             t_s: seconds since the first exported sample; gx..gz rad/s (raw), ax..az m/s^2
             (+9.81 up at rest), mx..mz uT (raw); empty cells for a sensor the source lacks.
             The file replays with 'edgemotion replay FILE.csv' and feeds the shared tools.

    options:
      --config FILE   use recorder.directory / state_directory from this configuration
      --state-dir DIR the agent's state directory: its recordings/ folder (as 'activity', 'steps')
      --dir DIR       the recordings directory itself (default: /var/lib/edgemotion/recordings)
      --from TIME     2026-11-30T09:15:00Z, 2026-11-30 09:15, 2026-11-30 or Unix seconds (UTC)
      --to TIME       same forms
      --format csv    the only format so far
      --output FILE   write there instead of standard output

    examples:
      edgemotion recordings list
      edgemotion recordings export --from 2026-11-30T09:40:00Z --to 2026-11-30T09:41:00Z --output minute.csv

    exit status: 0 done; 1 nothing matched or a file is unreadable; 64 usage.
    """

    func run(arguments: [String]) -> Int32 {
        guard let sub = arguments.first, sub == "list" || sub == "export" else {
            printError(arguments.isEmpty ? usage : "edgemotion recordings: unknown action '\(arguments[0])'; use list or export\n\n\(usage)")
            return 64
        }
        guard let options = OptionScanner(command: "recordings \(sub)", arguments: Array(arguments.dropFirst()),
                                          valued: ["--config", "--state-dir", "--dir", "--from", "--to", "--format", "--output"], usage: usage) else { return 64 }
        let given = ["--config", "--state-dir", "--dir"].filter { options[$0] != nil }
        guard given.count <= 1 else {
            printError("edgemotion recordings \(sub): give one of \(given.joined(separator: ", ")), not several")
            return 64
        }
        let directory: String
        if let dir = options["--dir"] {
            directory = dir
        } else if let state = options["--state-dir"] {
            directory = AgentConfiguration.default.recorder.resolvedDirectory(stateDirectory: state)
        } else {
            guard let c = options.configuration() else { return 2 }
            directory = c.recorder.resolvedDirectory(stateDirectory: c.stateDirectory)
        }
        let store = RecordingStore(directory: directory)
        return sub == "list" ? list(store, options) : export(store, options)
    }

    private func list(_ store: RecordingStore, _ options: OptionScanner) -> Int32 {
        if !options.positional.isEmpty {
            printError("edgemotion recordings list: unexpected argument '\(options.positional[0])'")
            return 64
        }
        let files = store.list()
        guard !files.isEmpty else {
            print("no recordings in \(store.directory) (record with 'edgemotion record --duration 20m' or recorder.enabled: true)")
            return 0
        }
        print("file\tfirst_utc\tlast_utc\tduration_s\tsamples\trate_hz\tbytes\tstatus")
        var total = 0
        for f in files {
            let first = f.firstUTCNanos.map { RFC3339.format(unixNanos: $0) } ?? "-"
            let last = f.lastUTCNanos.map { RFC3339.format(unixNanos: $0) } ?? "-"
            let seconds = f.firstUTCNanos.flatMap { a in f.lastUTCNanos.map { format2(Double($0 - a) * 1e-9) } } ?? "0"
            print("\(f.name)\t\(first)\t\(last)\t\(seconds)\t\(f.samples)\t\(f.rateHz.map(format2) ?? "-")\t\(f.bytes)\t\(Self.status(f))")
            total += f.bytes
        }
        print("\(files.count) file(s), \(total) bytes in \(store.directory)")
        return 0
    }

    private func export(_ store: RecordingStore, _ options: OptionScanner) -> Int32 {
        if let f = options["--format"], f != "csv" {
            printError("edgemotion recordings export: --format '\(f)' is not supported; use csv")
            return 64
        }
        var from = Int64.min, to = Int64.max
        for (option, target) in [("--from", 0), ("--to", 1)] {
            guard let text = options[option] else { continue }
            guard let t = TimeOption.utcNanos(text) else {
                printError("edgemotion recordings export: \(option): '\(text)' is not a time such as 2026-11-30T09:15:00Z or Unix seconds")
                return 64
            }
            if target == 0 { from = t } else { to = t }
        }
        let paths = options.positional.isEmpty ? store.files() : options.positional
        guard !paths.isEmpty else {
            printError("edgemotion recordings export: no recordings in \(store.directory)")
            return 1
        }
        // Say what the defaults mean before a possibly long export.
        if options["--from"] == nil, options["--to"] == nil {
            let what = options.positional.isEmpty ? "every recording in \(store.directory) (\(paths.count) file(s))" : "\(paths.count) file(s)"
            printError("edgemotion recordings export: exporting all samples of \(what) to \(options["--output"] ?? "standard output"); --from/--to select a time range")
        }
        var out = CSVOutput()
        if let path = options["--output"] {
            guard out.open(path) else {
                printError("edgemotion recordings export: cannot write \(path): \(Errno.current.text)")
                return 1
            }
        }
        out.write("t_s,gx,gy,gz,ax,ay,az,mx,my,mz\n")
        var firstUTC: Int64?
        var rows = 0
        var progress = ProgressLine("export", unit: "files", total: paths.count)
        defer { progress.finish() }
        for (index, path) in paths.enumerated() {
            progress.update(index)
            let reader: RecordingFileReader
            do {
                reader = try RecordingFileReader(path: path)
            } catch {
                printError("edgemotion recordings export: \(error); skipped")
                continue
            }
            let offset = reader.header.utcOffsetNanos
            while let s = reader.next() {
                let utc = Int64(bitPattern: s.timestampNanos) &+ offset
                guard utc >= from, utc <= to else { continue }
                let t0 = firstUTC ?? utc
                firstUTC = t0
                out.write(Self.row(s, seconds: utc - t0))
                rows += 1
            }
            if reader.damagedBlocks > 0 {
                printError("edgemotion recordings export: \(path): \(reader.damagedBlocks) damaged block(s) skipped (\(reader.ignoredBytes) bytes); the intact blocks were exported")
            } else if reader.tornTail {
                printError("edgemotion recordings export: \(path): ends in a damaged block (\(reader.ignoredBytes) bytes skipped); the samples before it were exported")
            }
        }
        progress.finish()
        out.close()
        guard rows > 0 else {
            printError("edgemotion recordings export: no samples between \(options["--from"] ?? "the start") and \(options["--to"] ?? "the end")")
            return 1
        }
        printError("exported \(rows) samples")
        return 0
    }

    /// The `status` column of `list`.
    static func status(_ f: RecordingFileInfo) -> String {
        if f.unreadable { return "unreadable" }
        if f.damagedBlocks > 0 { return "\(f.damagedBlocks) damaged block\(f.damagedBlocks == 1 ? "" : "s")" + (f.tornTail ? ", torn tail" : "") }
        return f.tornTail ? "torn tail" : "ok"
    }

    /// One CSV row; Float32 values printed in their shortest exact form.
    static func row(_ s: IMUSample, seconds nanos: Int64) -> String {
        func v(_ x: Double) -> String { Float(x).description }
        func triple(_ present: Bool, _ x: Vector3) -> String { present ? "\(v(x.x)),\(v(x.y)),\(v(x.z))" : ",," }
        let micros = nanos / 1000
        let frac = String(micros % 1_000_000)
        let t = "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - frac.count) + frac
        return t + "," + triple(s.contents.contains(.gyroscope), s.rotationRate) + ","
            + triple(s.contents.contains(.accelerometer), s.specificForce) + ","
            + triple(s.contents.contains(.magnetometer), s.magneticField) + "\n"
    }
}

/// Buffered text output to standard output or a file.
struct CSVOutput {
    private var fd: Int32 = 1
    private var pending: [UInt8] = []

    mutating func open(_ path: String) -> Bool {
        fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        return fd >= 0
    }

    mutating func write(_ text: String) {
        pending.append(contentsOf: text.utf8)
        if pending.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        var offset = 0
        while offset < pending.count {
            let n = pending.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 { break }
            offset += n
        }
        pending.removeAll(keepingCapacity: true)
    }

    mutating func close() {
        flush()
        if fd > 2 { Glibc.close(fd) }
    }
}
