import Messaging
import MotionCore
import Sensors

/// `edgemotion events`: runs the motion-event detectors over a recording and prints one JSON
/// object per line per event.
struct EventsCommand: Command {
    let name = "events"
    let summary = "run the motion-event detectors over a recording CSV and print the events"
    let usage = """
    usage: edgemotion events --input FILE.csv [--config FILE.yaml] [--vibration] [--no-gyro] [--arm-tamper-at S]
           edgemotion events --scenario NAME [--config FILE.yaml] [--truth]

    Reads a recording in the shared schema (t_s,ax,ay,az[,gx,gy,gz]...; m/s², rad/s; plain or .gz),
    runs the detectors of docs/events.md (tap, double_tap, shock, free_fall, motion, stationary,
    significant_motion, tilt_threshold, vibration_start, vibration_stop, vibration_changed,
    fall when events.fall_detection is on, orientation when events.orientation is on) and prints one JSON object per line per event, e.g.
      {"type":"free_fall","t_s":12.351,"onset_s":12.001,"duration_s":0.35,"drop_height_m":0.601}
    t_s is the recording's time of the decision, onset_s when the event began. The sample rate
    is taken from the t_s column.

      --config FILE   the agent's YAML config; its events: section sets thresholds and bands.
      --vibration     also print each vibration reading ({"type":"vibration","rms_ms2":...}).
      --no-gyro       ignore the recording's gyroscope columns.
      --arm-tamper-at S  arm tamper detection at recording time S (t_s, seconds), as cmd/events
                      arm_tamper does on a live device: later motion or tilt is a `tamper` event.
      --scenario NAME a simulated recording with known truth instead of --input: door, washer,
                      drop, tap, fall, quiet (docs/events.md; 400 Hz).
      --truth         with --scenario: also print the true events ({"truth":"tap","t_s":...}).

    examples:
      edgemotion events --input ../shared/data/fusion/24_disturbed_tapping_A.csv.gz
      edgemotion events --scenario drop --truth --config my.yaml

    exit status: 0 printed; 64 usage or an unknown scenario; 65 a bad config or too few samples;
    66 the recording cannot be read.
    """

    func run(arguments: [String]) -> Int32 {
        guard let options = OptionScanner(command: name, arguments: arguments, valued: ["--input", "--config", "--scenario", "--arm-tamper-at"],
                                          flagNames: ["--vibration", "--no-gyro", "--truth"], usage: usage) else { return 64 }
        guard options.positional.isEmpty else {
            printError("edgemotion events: unexpected argument '\(options.positional[0])'. Run 'edgemotion events --help'.")
            return 64
        }
        let input = options["--input"], scenarioName = options["--scenario"]
        guard (input == nil) != (scenarioName == nil) else {
            printError("edgemotion events: give --input FILE or --scenario NAME. Run 'edgemotion events --help'.")
            return 64
        }
        var armTamperAt: Double?
        if let text = options["--arm-tamper-at"] {
            guard let t = Double(text), t.isFinite else {
                printError("edgemotion events: --arm-tamper-at: '\(text)' is not a time in seconds (the recording's t_s)")
                return 64
            }
            armTamperAt = t
        }
        var settings = EventSettings()
        if let config = options["--config"] {
            do {
                settings = try ConfigurationLoader.load(path: config).events
            } catch {
                printError("edgemotion events: \(error)")
                return 65
            }
        }
        var rows: [(time: Double, specificForce: Vector3, rotationRate: Vector3?)] = []
        var out = ""
        if let scenarioName {
            guard let scenario = EventScenario(named: scenarioName) else {
                printError("edgemotion events: unknown scenario '\(scenarioName)'; known: \(EventScenario.names.joined(separator: ", "))")
                return 64
            }
            rows = scenario.samples.map { ($0.timestamp, $0.specificForce, $0.rotationRate) }
            if options.flags.contains("--truth") {
                for t in scenario.truth { out += "{\"truth\":\"\(t.type)\",\"t_s\":\(FixedPoint.string(t.time, digits: 3))}\n" }
            }
        } else if let input {
            do {
                rows = try RecordingReader(path: input).readAll().map { ($0.time, $0.specificForce, $0.rotationRate) }
            } catch {
                printError("edgemotion events: \(error)")
                return 66
            }
        }
        guard rows.count >= 2, let first = rows.first, let last = rows.last, last.time > first.time else {
            printError("edgemotion events: \(input ?? "the scenario") has fewer than two samples with increasing t_s; nothing to analyse")
            return 65
        }
        let rate = Double(rows.count - 1) / (last.time - first.time)
        let useGyro = !options.flags.contains("--no-gyro"), printVibration = options.flags.contains("--vibration")
        // A recording carries no chip interrupt flags: the software detectors decide everything,
        // whatever events.chip_motion / chip_engines resolved to for the config's live source.
        var offline = settings.detectors
        offline.chipMotion = false
        offline.chipFreeFall = false
        offline.chipTap = false
        offline.chipOrientation = false
        var detectors = MotionEventDetectors(configuration: offline, sampleRate: rate)
        let thresholds = settings.detectors.tiltThresholds, bands = settings.detectors.vibration.bands
        var w = JSONWriter(capacity: 512)
        func line() {
            w.withUnsafeBytes { out += String(decoding: $0, as: UTF8.self) }
            out += "\n"
            if out.utf8.count > 1 << 16 {
                print(out, terminator: "")
                out = ""
            }
        }
        for row in rows {
            if let t = armTamperAt, row.time >= t {
                detectors.armTamper()
                armTamperAt = nil
            }
            let windowEnded = detectors.update(time: row.time, specificForce: row.specificForce,
                                               rotationRate: useGyro ? row.rotationRate : nil) { e in
                w.reset()
                w.beginObject()
                MotionEventPayload.writeFields(e, thresholds: thresholds, into: &w)
                w.endObject()
                line()
            }
            if printVibration, windowEnded, let r = detectors.vibration.latest {
                w.reset()
                w.beginObject()
                w.field("type", "vibration")
                w.field("t_s", r.time, fractionDigits: 3)
                w.key("reading")
                MotionEventPayload.writeVibration(r, bands: bands, into: &w)
                w.endObject()
                line()
            }
        }
        print(out, terminator: "")
        return 0
    }
}
