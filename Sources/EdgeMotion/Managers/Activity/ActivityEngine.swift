import Dispatch
import MotionCore
import Sensors
import Synchronization

/// Activity detection and step counting on a source's shared pipeline: one `ActivityDetector`
/// and one step detector for every `MotionActivityManager` and `PedometerManager` of the
/// source (and for the agent's `activity`/`pedometer` topics).
///
/// Like Core Motion's motion coprocessor, it runs in the background once started (by the first
/// activity or pedometer client, or `start()`), keeping the history, until `stop()` or the end of
/// the service; clients only subscribe and unsubscribe. It consumes the accelerometer stream at
/// `sampleRate` (50 Hz), so it costs little next to fusion.
///
/// The service owns its engine (`service.activityEngine`); the engine refers back to it without
/// keeping it alive, so keep the service (or a manager, which holds it) while using the engine.
public final class ActivityEngine: Sendable {
    public unowned let service: MotionService
    public let history: any ActivityHistoryStoring
    /// Accelerometer samples per second fed to the detectors (capped at the source rate).
    public let sampleRate: Double
    private let historyQueue = DispatchQueue(label: "edgemotion.activity.history")
    private let observers = ActivityObservers()
    private let sink: ActivitySink
    private let consumer = Mutex<MotionConsumerID?>(nil)

    public init(service: MotionService, history: any ActivityHistoryStoring = InMemoryActivityHistory(),
                activity: ActivityConfiguration = ActivityConfiguration(), pedometer: PedometerConfiguration = PedometerConfiguration(),
                sampleRate: Double = 50) {
        self.service = service
        self.history = history
        self.sampleRate = sampleRate
        sink = ActivitySink(activity: activity, pedometer: pedometer, observers: observers, history: history,
                            historyQueue: historyQueue, clock: WallClockMapping.current())
    }

    /// Whether the source can feed activity detection and step counting (it has an accelerometer).
    public var isAvailable: Bool { service.capabilities.sensors.contains(.accelerometer) }

    /// Whether the engine is attached to the pipeline.
    public var isRunning: Bool { consumer.withLock { $0 != nil } }

    /// Starts detection (idempotent). Throws `MotionError.motionActivityNotAvailable` without an
    /// accelerometer, `.sourceStartFailed` when the source cannot start.
    public func start() throws(MotionError) {
        guard isAvailable else {
            throw MotionError(.motionActivityNotAvailable, detail: "\(service.capabilities.name) has no accelerometer")
        }
        try consumer.withLock { (id: inout MotionConsumerID?) throws(MotionError) in
            guard id == nil else { return }
            do {
                id = try service.addConsumer(sink, schedule: .only(.accelerometer, StreamSchedule(rate: sampleRate, publishRate: 10)))
            } catch {
                throw MotionError(.sourceStartFailed, detail: "\(error)")
            }
        }
    }

    /// Stops detection; history already written stays.
    public func stop() {
        if let id = consumer.withLock({ id -> MotionConsumerID? in defer { id = nil }; return id }) {
            service.removeConsumer(id)
        }
    }

    // MARK: Latest state

    /// The activity in force (UTC `startDate`), `nil` before the first one settles.
    public var currentActivity: MotionActivity? { sink.latestActivity.load() }
    /// Steps since the engine started, with the current cadence and pace (UTC dates).
    public var pedometerData: PedometerData? { sink.latestPedometer.load() }
    /// UTC time of the newest sample the engine has seen.
    public var latestSampleDate: Double? { sink.latestSampleUTC.load() }
    /// Why activity decisions are being withheld (source rate below what the detector needs, or
    /// input without gravity), `nil` while the input is usable or before any sample arrived.
    public var inputProblem: ActivityInputProblem? { sink.inputProblem.load() ?? nil }
    /// Whether the latest decision used the detector's low-rate model (input measured below
    /// `ActivityConfiguration.lowRateModelBelow`, 16 Hz), `nil` before the first decision.
    public var usesLowRateModel: Bool? { sink.usedLowRateModel.load() ?? nil }

    // MARK: Subscriptions (used by the managers)

    func addActivityObserver(queue: DispatchQueue, handler: @escaping @Sendable (MotionActivity?) -> Void) -> UInt64 {
        observers.add { l, id in l.activity[id] = (queue, handler) }
    }

    func removeActivityObserver(_ id: UInt64) { observers.lists.withLock { _ = $0.activity.removeValue(forKey: id) } }

    /// Live pedometer updates counting from `from` (UTC): the history up to now plus what the
    /// engine counts from here on.
    func addPedometerObserver(from: Double, queue: DispatchQueue,
                              handler: @escaping @Sendable (PedometerData?, MotionError?) -> Void) -> UInt64 {
        let (base, live) = historyQueue.sync { () -> (PedometerRecord, PedometerData?) in
            let now = max(sink.latestSampleUTC.load() ?? from, from) + 1e-6
            return ((try? totals(from: from, to: now)) ?? PedometerRecord(start: from, end: now, steps: 0, distance: 0),
                    sink.latestPedometer.load())
        }
        let observer = ActivityObservers.PedometerObserver(
            queue: queue, handler: handler, baseSteps: base.steps, baseDistance: base.distance,
            liveSteps: live?.numberOfSteps ?? 0, liveDistance: live?.distance ?? 0, from: from)
        return observers.add { l, id in l.pedometer[id] = observer }
    }

    func removePedometerObserver(_ id: UInt64) { observers.lists.withLock { _ = $0.pedometer.removeValue(forKey: id) } }

    func addEventObserver(queue: DispatchQueue, handler: @escaping @Sendable (PedometerEvent?, MotionError?) -> Void) -> UInt64 {
        observers.add { l, id in l.events[id] = (queue, handler) }
    }

    func removeEventObserver(_ id: UInt64) { observers.lists.withLock { _ = $0.events.removeValue(forKey: id) } }

    // MARK: Queries (run on the history queue, after every pending write)

    /// Activity changes that started in `[from, to)` (UTC s), oldest first.
    public func activities(from: Double, to: Double) throws -> [MotionActivity] {
        try historyQueue.sync { try history.activityChanges(from: from, to: to) }
    }

    /// Steps and distance in `[from, to)` (UTC s): the history, plus the steps counted since the
    /// last history write when the range reaches past it.
    public func pedometerTotals(from: Double, to: Double) throws -> PedometerRecord {
        try historyQueue.sync { try totals(from: from, to: to) }
    }

    /// Call on the history queue.
    private func totals(from: Double, to: Double) throws -> PedometerRecord {
        var total = try history.pedometerTotals(from: from, to: to)
        if let live = sink.latestPedometer.load(), let written = sink.flushed.load(), to > written.utcEnd {
            total.steps += live.numberOfSteps - written.steps
            total.distance += live.distance - written.distance
        }
        return total
    }

    /// Runs `body` on the history queue (queries from the managers' asynchronous forms).
    func onHistoryQueue(_ body: @escaping @Sendable () -> Void) { historyQueue.async(execute: body) }
}
