// Compiled into AgentTests (FuzzCorpusTests' `csv-recording` replayer) and into the libFuzzer
// `csv-recording` target (scripts/fuzz lists this file; there RecordingReader and its helpers
// are in the same module, compiled instrumented, and MotionCore is linked).
#if canImport(Glibc)
import Glibc
#endif
import MotionCore
#if !EDGEMOTION_FUZZ
import Sensors
#endif

/// What must hold for any file given as a recording in the shared CSV schema (`source.replay.file`,
/// `classify`/`steps`/`events`/`fusion --input`): one copy for the fuzzer and its corpus replayer.
/// Every row the reader yields has a time every consumer can hold and a finite specific force, and
/// the consumers that read such files run over them without trapping: the activity detector, the
/// pedometer and the motion-event detectors at the rate `edgemotion events` derives from the rows.
/// Each check is a `precondition` (a crash is what the fuzzer reports).
enum CsvRecordingFuzzCheck {
    /// The input is written to this file (the reader takes a path; gzip is read transparently).
    static let path: String = {
        var st = stat()
        let dir = stat("/dev/shm", &st) == 0 ? "/dev/shm" : "/tmp"
        return "\(dir)/edgemotion-fuzz-csv-\(getpid()).csv"
    }()

    static func check(_ bytes: [UInt8]) {
        guard let file = fopen(path, "wb") else { return }
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
        defer { unlink(path) }
        guard let reader = try? RecordingReader(path: path) else { return }
        var rows: [RecordingRow] = []
        while rows.count < 4000, let row = try? reader.next() {
            precondition(row.time.isFinite && abs(row.time) <= RecordingReader.largestTime, "t_s \(row.time) was accepted")
            let f = row.specificForce
            precondition(f.x.isFinite && f.y.isFinite && f.z.isFinite, "specific force \(f) was accepted")
            rows.append(row)
        }
        let detector = ActivityDetector()
        var pedometer = Pedometer()
        for r in rows {
            _ = detector.update(time: r.time, specificForce: r.specificForce, rotationRate: r.rotationRate)
            _ = pedometer.update(time: r.time, specificForce: r.specificForce)
        }
        // As `edgemotion events --input`: the mean rate over the rows, when they span a time.
        guard rows.count >= 2, let first = rows.first, let last = rows.last, last.time > first.time else { return }
        var events = MotionEventDetectors(sampleRate: Double(rows.count - 1) / (last.time - first.time))
        for r in rows {
            _ = events.update(time: r.time, specificForce: r.specificForce, rotationRate: r.rotationRate) { _ in }
        }
    }
}
