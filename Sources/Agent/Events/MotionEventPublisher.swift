import Dispatch
import EdgeMotion
import Logging
import Messaging
import MotionCore
import Synchronization

/// Publishes motion events and their states (`events.enabled`), as one client of the library's
/// `MotionEventManager`:
///
/// - `<prefix>/events/motion` (QoS 1, spooled until acknowledged, never dropped): every event,
///   with a per-run `seq` and `timestamp_utc`;
/// - `<prefix>/state/tilt`, `state/vibration`, `state/motion` (QoS 1, retained): once per
///   vibration window (1 s);
/// - `<prefix>/state/threshold/<name>` (QoS 1, retained): each tilt threshold, on change and
///   at start;
/// - `<prefix>/vibration/spectrum` (QoS 0, retained; only with `events.vibration.spectrum.enabled`):
///   the vibration spectrum every `interval_s`.
///
/// The zero pose ("set level", `cmd/events`) is kept in `state_directory/events-zero` so it
/// survives restarts.
final class MotionEventPublisher: Sendable {
    let manager: MotionEventManager
    private let settings: EventSettings
    private let outbox: Outbox
    private let eventsTopic: String
    private let tiltTopic: String
    private let vibrationTopic: String
    private let motionTopic: String
    private let spectrumTopic: String
    private let thresholdTopics: [String]
    private let zeroPath: String
    private let queue = DispatchQueue(label: "edgemotion.events-publisher")
    private let log = Logger(label: "events")
    private let utcOffset: Double
    /// The thresholds' last published states (nil: not yet).
    private let thresholdStates = Mutex<[Bool?]>([])
    /// `events/motion`'s numbering (`run`, `seq`): new for each publisher, so per pipeline start.
    private let sequence = EventSequence()

    init(service: MotionService, settings: EventSettings, stateDirectory: String, outbox: Outbox, topics: TopicLayout) {
        self.settings = settings
        self.outbox = outbox
        eventsTopic = topics.event("motion")
        tiltTopic = topics.state("tilt")
        vibrationTopic = topics.state("vibration")
        motionTopic = topics.state("motion")
        spectrumTopic = topics.vibrationSpectrum
        thresholdTopics = settings.detectors.tiltThresholds.map { topics.threshold($0.name) }
        zeroPath = ZeroPoseFile.path(stateDirectory: stateDirectory)
        utcOffset = Double(WallClockMapping.current().offsetNanos) * 1e-9
        var zero: Vector3?
        do throws(ZeroPoseFile.Damaged) {
            zero = try ZeroPoseFile.read(stateDirectory: stateDirectory)
        } catch {
            Logger(label: "events").warning("zero pose ignored: tilt is measured from level until the next set_level",
                                            ["error": error.description])
        }
        manager = MotionEventManager(service: service, configuration: settings.detectors, zero: zero)
        thresholdStates.withLock { $0 = Array(repeating: nil, count: settings.detectors.tiltThresholds.count) }
    }

    func start() throws(MotionError) {
        var spectrumHandler: (@Sendable (VibrationSpectrum) -> Void)?
        if settings.detectors.vibration.spectrum.enabled {
            spectrumHandler = { [self] (s: VibrationSpectrum) in publishSpectrum(s) }
        }
        try manager.startEventUpdates(to: queue, withHandler: { [self] e in publish(e) },
                                      stateHandler: { [self] s in publish(s) },
                                      zeroHandler: { [self] z in persist(z) },
                                      spectrumHandler: spectrumHandler)
    }

    func stop() { manager.stopEventUpdates() }

    // MARK: Commands

    /// `cmd/events` actions: `set_level`, `arm_tamper`, `disarm_tamper`. Returns an error text
    /// for an unknown action.
    func perform(_ action: String) -> String? {
        switch action {
        case "set_level", "zero": manager.setLevel()
        case "arm_tamper": manager.armTamper()
        case "disarm_tamper": manager.disarmTamper()
        default: return "unknown action '\(action)'; available: set_level, arm_tamper, disarm_tamper"
        }
        log.notice("events command", ["action": action])
        return nil
    }

    private func persist(_ z: Vector3) {
        let text = ZeroPoseFile.encode(z)
        do throws(FileError) {
            try WholeFile.write(text, atomicallyTo: zeroPath)
            log.notice("zero pose set", ["up": text.dropLast().description, "file": zeroPath])
        } catch {
            log.error("cannot keep the zero pose; it is lost at restart", ["file": zeroPath, "error": "\(error)"])
        }
    }

    // MARK: Payloads

    private func publish(_ e: MotionEvent) {
        var w = JSONWriter(capacity: 512)
        sequence.beginEvent(&w)
        w.field("timestamp_utc", e.time + utcOffset, fractionDigits: 3)
        MotionEventPayload.writeFields(e, thresholds: settings.detectors.tiltThresholds, into: &w)
        w.endObject()
        outbox.enqueueEvent(topic: eventsTopic, payload: w.buffer)
        if e.type == .tiltThreshold { publishThreshold(e.index, on: e.state, tilt: e.angle) }
    }

    private func publishThreshold(_ index: Int, on: Bool, tilt: Double) {
        guard index < thresholdTopics.count else { return }
        thresholdStates.withLock { $0[index] = on }
        let t = settings.detectors.tiltThresholds[index]
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        w.field("state", on ? t.onName : t.offName)
        w.field("on", on)
        w.field("tilt_deg", tilt, fractionDigits: 2)
        w.endObject()
        outbox.enqueueState(topic: thresholdTopics[index], payload: w.buffer, qos: 1, retain: true)
    }

    private func publishSpectrum(_ s: VibrationSpectrum) {
        var w = JSONWriter(capacity: 256 + 40 * s.rms.count)
        MotionEventPayload.writeSpectrum(s, utcOffset: utcOffset, into: &w)
        outbox.enqueueState(topic: spectrumTopic, payload: w.buffer, qos: 0, retain: true)
    }

    private func publish(_ s: MotionEventState) {
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        w.field("tilt_deg", s.tilt, fractionDigits: 2)
        w.field("roll_deg", s.roll, fractionDigits: 2)
        w.field("pitch_deg", s.pitch, fractionDigits: 2)
        w.key("zero")
        w.beginArray()
        w.value(s.zero.x, fractionDigits: 5); w.value(s.zero.y, fractionDigits: 5); w.value(s.zero.z, fractionDigits: 5)
        w.endArray()
        w.endObject()
        outbox.enqueueState(topic: tiltTopic, payload: w.buffer, qos: 1, retain: true)
        if let v = s.vibration {
            var b = JSONWriter(capacity: 512)
            MotionEventPayload.writeVibration(v, bands: settings.detectors.vibration.bands, into: &b)
            outbox.enqueueState(topic: vibrationTopic, payload: b.buffer, qos: 1, retain: true)
        }
        var m = JSONWriter(capacity: 256)
        m.beginObject()
        m.field("moving", s.moving)
        m.field("stationary_s", s.stationaryFor, fractionDigits: 1)
        m.field("tamper_armed", s.tamperArmed)
        m.endObject()
        outbox.enqueueState(topic: motionTopic, payload: m.buffer, qos: 1, retain: true)
        // Thresholds not yet published (after a start): their current state, once.
        let unpublished = thresholdStates.withLock { st in (0..<st.count).filter { st[$0] == nil } }
        for i in unpublished { publishThreshold(i, on: s.threshold(i), tilt: s.tilt) }
    }
}
