import Dispatch
import EdgeMotion
import Logging
import Messaging
import MotionCore
import Synchronization

/// Publishes what the activity engine detects, through the library's own managers (the agent
/// is one client of `MotionActivityManager` and `PedometerManager`, not a second pipeline):
///
/// - `<prefix>/activity` (QoS 1, retained): the current activity, on change only;
/// - `<prefix>/events/activity` (QoS 1, spooled until acknowledged): every change, with a
///   per-run `seq`, never dropped, so a persistent-session subscriber sees each exactly once;
/// - `<prefix>/pedometer` (QoS 1, retained): steps, distance, cadence, pace since the agent started,
///   every `activity.pedometer_interval_s` while they change, and at once when a walk ends
///   (cadence and pace 0);
/// - `<prefix>/pedometer/events` (QoS 1, spooled): walking paused / resumed, with its own per-run
///   `seq` and the same `run`.
///
/// History (SQLite in the state directory) is written by the engine; `HistoryQueryResponder`
/// answers queries from the same store.
final class ActivityPublisher: Sendable {
    let store: ActivityHistoryStore
    private let engine: ActivityEngine
    private let activityManager: MotionActivityManager
    private let pedometerManager: PedometerManager
    private let outbox: Outbox
    private let activityTopic: String
    private let activityEventsTopic: String
    private let pedometerTopic: String
    private let pedometerEventsTopic: String
    private let interval: Double
    private let queue = DispatchQueue(label: "edgemotion.activity-publisher")
    private let log = Logger(label: "activity")
    private let state = Mutex<(lastPedometer: Double, lastCadence: Double)>((0, 0))
    /// `events/activity`'s and `pedometer/events`' numberings: one `run`, new for each publisher
    /// (so per pipeline start), and a `seq` count each.
    private let activitySequence: EventSequence
    private let pedometerSequence: EventSequence

    init(service: MotionService, settings: ActivitySettings, stateDirectory: String, outbox: Outbox, topics: TopicLayout) throws {
        store = try ActivityHistoryStore(directory: stateDirectory, retention: settings.historyDays * 86_400)
        let run = EventRun.newID()
        activitySequence = EventSequence(run: run)
        pedometerSequence = EventSequence(run: run)
        // The service's one activity engine keeps its history in the SQLite store; the managers
        // below (and any library client of the same service) share it.
        service.useActivityHistory(store, activity: settings.detectorConfiguration, pedometer: settings.pedometerConfiguration)
        activityManager = MotionActivityManager(service: service)
        engine = service.activityEngine
        pedometerManager = PedometerManager(service: service)
        self.outbox = outbox
        activityTopic = topics.activity
        activityEventsTopic = topics.event("activity")
        pedometerTopic = topics.pedometer
        pedometerEventsTopic = topics.pedometerEvents
        interval = settings.pedometerInterval
    }

    /// Why the detector withholds activity decisions (input rate too low, no gravity in the
    /// input), `nil` while its input is usable: for `health` and the agent's log.
    var inputProblem: ActivityInputProblem? { engine.inputProblem }

    /// The model the latest decision used: "main" or "low_rate" (input below 16 Hz), `nil` before
    /// the first decision: for `health`.
    var modelName: String? { engine.usesLowRateModel.map { $0 ? "low_rate" : "main" } }

    /// Starts detection and publishing (the engine joins the running pipeline as a consumer).
    func start() {
        let startUTC = Double(MonotonicClock.realtimeNanos()) * 1e-9
        activityManager.startActivityUpdates(to: queue) { [self] activity in
            guard let activity else { return }
            publish(activity)
        }
        pedometerManager.startUpdates(from: UTCInstant(secondsSince1970: startUTC), to: queue) { [self] data, error in
            if let error {
                log.warning("pedometer unavailable", ["error": "\(error)"])
                return
            }
            guard let data else { return }
            // Every `interval` while the count changes; the end of a walk (cadence 0) always,
            // so the topic never keeps the last walk's cadence and pace.
            let due = state.withLock { s -> Bool in
                let walkEnded = data.currentCadence == 0 && s.lastCadence > 0
                guard data.endDate - s.lastPedometer >= interval || walkEnded else { return false }
                s.lastPedometer = data.endDate
                s.lastCadence = data.currentCadence
                return true
            }
            if due { publish(data) }
        }
        pedometerManager.startEventUpdates(to: queue) { [self] event, _ in
            guard let event else { return }
            var w = JSONWriter(capacity: 160)
            pedometerSequence.beginEvent(&w)
            w.field("event", event.kind.name)
            w.field("time_utc", event.date, fractionDigits: 3)
            w.endObject()
            outbox.enqueueEvent(topic: pedometerEventsTopic, payload: w.buffer)
        }
    }

    func stop() {
        activityManager.stopActivityUpdates()
        pedometerManager.stopUpdates()
        pedometerManager.stopEventUpdates()
    }

    private func publish(_ activity: MotionActivity) {
        var w = JSONWriter(capacity: 512)
        ActivityPayload.write(activity, startUTC: activity.startDate, into: &w)
        outbox.enqueueState(topic: activityTopic, payload: w.buffer, qos: 1, retain: true)
        // The event copy carries a sequence number for de-duplication.
        var e = JSONWriter(capacity: 512)
        activitySequence.beginEvent(&e)
        e.key("activity")
        ActivityPayload.write(activity, startUTC: activity.startDate, into: &e)
        e.endObject()
        outbox.enqueueEvent(topic: activityEventsTopic, payload: e.buffer)
        log.info("activity changed", ["activity": activity.flagNames, "confidence": activity.confidence.name,
                                      "previous_duration_s": "\(Int(activity.previousDuration))"])
    }

    private func publish(_ p: PedometerData) {
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        w.field("start_utc", p.startDate, fractionDigits: 3)
        w.field("end_utc", p.endDate, fractionDigits: 3)
        w.field("steps", p.numberOfSteps)
        w.field("distance_m", p.distance, fractionDigits: 2)
        w.field("cadence_steps_per_s", p.currentCadence, fractionDigits: 3)
        w.field("pace_s_per_m", p.currentPace, fractionDigits: 3)
        w.field("average_active_pace_s_per_m", p.averageActivePace, fractionDigits: 3)
        if let up = p.floorsAscended { w.field("floors_ascended", up) }
        if let down = p.floorsDescended { w.field("floors_descended", down) }
        w.endObject()
        // Retained: Home Assistant (or any late subscriber) gets the last totals after its own
        // restart, while the device lies still and no new summary is due.
        outbox.enqueueState(topic: pedometerTopic, payload: w.buffer, qos: 1, retain: true)
    }
}
