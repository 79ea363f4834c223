import EdgeMotion
import Logging
import MotionCore
import Sensors
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `edgemotion record`: raw samples at the source's full rate to rotating recording files,
/// without MQTT (Core Motion's `CMSensorRecorder.recordAccelerometer(forDuration:)`).
struct RecordCommand: Command {
    let name = "record"
    let summary = "record raw samples at the source rate to rotating files (no MQTT)"
    let usage = """
    usage: edgemotion record [--config FILE] [--duration DURATION] [--output DIR] [--device-id ID]
                             [--log-level LEVEL]

    Reads the configured source (source: in the config; default: the simulator) at its full rate
    and writes every raw sample — accelerometer, gyroscope, magnetometer, hardware timestamps and
    sequence numbers — to compact binary files (.emr, docs/recording.md) until DURATION passes,
    SIGINT/SIGTERM, or a replayed recording ends. Files rotate and old ones are removed as the
    recorder: section says (max_file_mb, max_file_minutes, max_total_mb, max_age_days).

    options:
      --config FILE         configuration file (default: built-in defaults)
      --duration DURATION   stop after DURATION: 90, 90s, 20m, 2h (default: until a signal)
      --output DIR          directory for the files (default: recorder.directory, else
                            <state_directory>/recordings, i.e. /var/lib/edgemotion/recordings)
      --device-id ID        overrides device.id (written in the file header)
      --log-level LEVEL     trace, debug, info, notice, warning, error

    Prints what was recorded: samples, files, bytes, samples per second, MB per hour.
    Then: 'edgemotion recordings list', 'edgemotion recordings export', 'edgemotion replay FILE'.

    example:
      edgemotion record --config /etc/edgemotion/edgemotion.yaml --duration 30s --output /tmp/cal-gyro

    exit status: 0 recorded; 1 the source or the directory failed; 2 configuration error; 64 usage.
    """

    func run(arguments: [String]) -> Int32 {
        SignalWaiter.blockSignals()
        guard let options = OptionScanner(command: name, arguments: arguments,
                                          valued: ["--config", "--duration", "--output", "--device-id", "--log-level"], usage: usage) else { return 64 }
        guard options.positional.isEmpty else {
            printError("edgemotion record: unexpected argument '\(options.positional[0])'\n\n\(usage)")
            return 64
        }
        guard let duration = options.duration("--duration") else { return 64 }
        guard let c = options.configuration() else { return 2 }
        Logger.threshold = c.logging.level
        let log = Logger(label: "record")

        let source: any IMUSource
        do {
            source = try SourceFactory.makeSource(c.source, configurationFile: c.sourceFile, streams: c.streams)
        } catch {
            printError("edgemotion record: cannot open the source: \(error)")
            return 1
        }
        let store = RecorderFactory.store(c, directory: options["--output"])
        do {
            try store.prepare()
        } catch {
            printError("edgemotion record: \(error)")
            return 1
        }
        let rate = RateBox()
        let recorder = RecorderFactory.make(c, store: store, source: source, rateHz: { rate.value.withLock { $0 } })
        let end = EndWatcher()
        let off = StreamSchedule(enabled: false, rate: 1, publishRate: 1)
        let pipelineConfiguration = PipelineConfiguration(
            requestedRate: c.source.rate, accelerometer: StreamSchedule(enabled: true, rate: 0, publishRate: 5),
            gyroscope: off, magnetometer: off, motion: off)
        let pipeline = MotionPipeline(source: source, configuration: pipelineConfiguration, outputs: [recorder, end])
        let report: PipelineStartReport
        do {
            report = try pipeline.start()
        } catch {
            printError("edgemotion record: cannot start the source \(source.capabilities.name): \(error)")
            return 1
        }
        rate.value.withLock { $0 = report.sourceConfiguration.rate }
        log.notice("recording", ["source": report.source.name, "rate_hz": "\(report.sourceConfiguration.rate)", "directory": store.directory])
        // Say what the defaults mean before a recording that may run for hours.
        let until = duration.map { "for \(format2($0)) s" } ?? "until Ctrl-C or SIGTERM (no --duration given)"
        let into = options["--output"] == nil ? "\(store.directory) (the recorder's directory: no --output given)" : store.directory
        printError("edgemotion record: recording \(report.source.name) at \(format2(report.sourceConfiguration.rate)) Hz into \(into) \(until)")

        let start = MonotonicClock.nowNanos()
        var reason = "stopped"
        loop: while true {
            if case .terminate(let signo)? = SignalWaiter.wait(timeout: 0.1) {
                reason = signo == SIGINT ? "SIGINT" : "SIGTERM"
                break loop
            }
            if let d = duration, Double(MonotonicClock.nowNanos() - start) * 1e-9 >= d {
                reason = "duration reached"
                break
            }
            if end.ended == .endOfStream {
                reason = "end of recording"
                break
            }
            if recorder.status.error != nil { break }
        }
        pipeline.stop()
        let elapsed = Double(MonotonicClock.nowNanos() - start) * 1e-9
        let status = recorder.status
        if let error = status.error {
            printError("edgemotion record: \(error)")
            return 1
        }
        let files = store.list()
        let bytes = files.suffix(status.files).reduce(0) { $0 + $1.bytes }
        let perSample = status.samples > 0 ? Double(bytes) / Double(status.samples) : 0
        let rateHz = report.sourceConfiguration.rate
        print("recorded \(status.samples) samples in \(status.files) file(s), \(bytes) bytes, \(format2(elapsed)) s (\(reason))")
        print("  \(format2(Double(status.samples) / max(elapsed, 1e-9))) samples/s written; \(format2(perSample)) bytes/sample;"
              + " \(format2(perSample * rateHz * 3600 / 1_000_000)) MB per hour at \(format2(rateHz)) Hz")
        print("  directory: \(store.directory)")
        return 0
    }
}

/// `12.35`.
func format2(_ v: Double) -> String {
    guard v.isFinite, abs(v) < 1e15 else { return "\(v)" }
    let scaled = Int64((v * 100).rounded())
    let whole = scaled / 100, frac = abs(scaled % 100)
    return (scaled < 0 && whole == 0 ? "-" : "") + "\(whole)." + (frac < 10 ? "0" : "") + "\(frac)"
}

final class RateBox: Sendable {
    let value = Mutex<Double>(0)
}

/// Remembers how the pipeline ended.
final class EndWatcher: PipelineOutput, Sendable {
    private let reason = Mutex<PipelineEnd?>(nil)
    var ended: PipelineEnd? { reason.withLock { $0 } }
    func pipeline(didEnd reason: PipelineEnd) { self.reason.withLock { $0 = reason } }
}
