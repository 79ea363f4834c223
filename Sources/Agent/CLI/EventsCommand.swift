import Messaging
import MotionCore
import Sensors

/// `edgemotion events`: runs the motion-event detectors over a recording and prints one JSON
/// object per line per event; `edgemotion events set-level` (and `arm-tamper`, `disarm-tamper`)
/// sends the action to the running agent (`EventsCommand+Agent.swift`).
struct EventsCommand: Command {
    let name = "events"
    let summary = "run the motion-event detectors over a recording CSV and print the events"
    let usage = """
    usage: edgemotion events --input FILE.csv [--config FILE.yaml [--apply-mount] [--no-zero]] [--vibration]
                             [--no-gyro] [--arm-tamper-at S]
           edgemotion events --scenario NAME [--config FILE.yaml [--no-zero]] [--truth]
           edgemotion events set-level|arm-tamper|disarm-tamper [--config FILE.yaml] [--broker URL]
                             [--device-id ID] [--timeout S]

    Reads a recording in the shared schema (t_s,ax,ay,az[,gx,gy,gz]...; m/s², rad/s; plain or .gz),
    runs the detectors of docs/events.md (tap, double_tap, shock, free_fall, motion, stationary,
    significant_motion, tilt_threshold, vibration_start, vibration_stop, vibration_changed,
    fall when events.fall_detection is on, orientation when events.orientation is on) and prints one JSON object per line per event, e.g.
      {"type":"free_fall","t_s":12.351,"onset_s":12.001,"duration_s":0.35,"drop_height_m":0.601}
    t_s is the recording's time of the decision, onset_s when the event began. The sample rate
    is taken from the t_s column.

      --config FILE   the agent's YAML config; its events: section sets thresholds and bands, and
                      the zero pose the agent keeps (state_directory/events-zero, from set_level)
                      is the zero of tilt, roll and pitch, as on the device.
      --no-zero       with --config: measure tilt from level, ignoring the kept zero pose.
      --apply-mount   with --config: the recording is in chip axes (a data set, another logger),
                      so rotate it by the config's source.mount (with a learned mount, as the agent
                      does) first. Without it the recording is taken to be in board axes, as
                      `edgemotion recordings export` writes it (the mount is already applied).
      --vibration     also print each vibration reading ({"type":"vibration","rms_ms2":...}).
      --no-gyro       ignore the recording's gyroscope columns.
      --arm-tamper-at S  arm tamper detection at recording time S (t_s, seconds), as cmd/events
                      arm_tamper does on a live device: later motion or tilt is a `tamper` event.
      --scenario NAME a simulated recording with known truth instead of --input: door, washer,
                      drop, tap, fall, carry, tamper (armed at its own time), turn, quiet
                      (docs/events.md; 400 Hz).
      --truth         with --scenario: also print the true events ({"truth":"tap","t_s":...}).

    set-level, arm-tamper, disarm-tamper: tell the running agent (events.enabled, control.enabled)
    to make its current pose the zero of tilt, roll and pitch (kept in state_directory/events-zero),
    or to arm/disarm tamper detection. Publishes {"id":…,"action":"set_level"} to <prefix>/cmd/events
    through the config's broker (mqtt.broker, then fallback_brokers; its user, password and TLS),
    waits for the agent's reply on <prefix>/cmd/events/result and prints it. The broker's ACL
    decides who may do this (docs/home-assistant.md).
      --broker URL    instead of mqtt.broker;  --device-id ID  another device's topic prefix
      --timeout S     for the connection, then for the reply (default 5 s)

    examples:
      edgemotion events --input ../shared/data/fusion/24_disturbed_tapping_A.csv.gz
      edgemotion events --scenario drop --truth --config my.yaml
      edgemotion events set-level --config /etc/edgemotion/edgemotion.yaml

    exit status: 0 printed (set-level…: the agent's ok reply); 64 usage or an unknown scenario;
    65 a bad config or too few samples; 66 the recording cannot be read. set-level…: 2 a bad config
    or no broker; 69 the broker cannot be reached; 75 no reply in time; 1 the agent refused (its
    reason is printed) or no thread could be started.
    """

    func run(arguments: [String]) -> Int32 {
        if let word = arguments.first, Self.agentActions[word] != nil {
            return runAgentAction(word, arguments: Array(arguments.dropFirst()))
        }
        guard let options = OptionScanner(command: name, arguments: arguments, valued: ["--input", "--config", "--scenario", "--arm-tamper-at"],
                                          flagNames: ["--vibration", "--no-gyro", "--truth", "--apply-mount", "--no-zero"], usage: usage) else { return 64 }
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
        var mount = SensorMount.identity
        var zero: Vector3?
        let applyMount = options.flags.contains("--apply-mount"), useZero = !options.flags.contains("--no-zero")
        if let config = options["--config"] {
            let c: AgentConfiguration
            do {
                c = try ConfigurationLoader.load(path: config)
            } catch {
                printError("edgemotion events: \(error)")
                return 65
            }
            settings = c.events
            if applyMount {
                do throws(MountFileError) { mount = try MountSetup.resolve(c).inertial } catch {
                    printError("edgemotion events: \(error)")
                    return 65
                }
            }
            if useZero {
                // As the agent starts: a damaged file is a warning and tilt is measured from level.
                do throws(ZeroPoseFile.Damaged) { zero = try ZeroPoseFile.read(stateDirectory: c.stateDirectory) } catch {
                    printError("edgemotion events: warning: zero pose ignored, tilt is measured from level: \(error)")
                }
            }
        } else if applyMount || !useZero {
            printError("edgemotion events: --apply-mount and --no-zero need --config FILE. Run 'edgemotion events --help'.")
            return 64
        }
        var rows: [(time: Double, specificForce: Vector3, rotationRate: Vector3?)] = []
        var out = ""
        if let scenarioName {
            guard let scenario = EventScenario(named: scenarioName) else {
                printError("edgemotion events: unknown scenario '\(scenarioName)'; known: \(EventScenario.names.joined(separator: ", "))")
                return 64
            }
            rows = scenario.samples.map { ($0.timestamp, $0.specificForce, $0.rotationRate) }
            if armTamperAt == nil { armTamperAt = scenario.armTamperAt }   // the scenario's own arming
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
        if let zero { detectors.setZero(zero) }
        if mount != .identity {
            rows = rows.map { ($0.time, mount.apply($0.specificForce), $0.rotationRate.map(mount.apply)) }
        }
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
