import Dispatch
import MotionCore
import Sensors
import Synchronization

/// Core Motion's `CMPedometer`: steps, distance, cadence and pace, live and from the history,
/// and pause/resume events.
///
/// (Named `PedometerManager` because `Pedometer` is MotionCore's step-detection algorithm.)
/// Built on the source's `ActivityEngine`. Dates are UTC seconds since 1970.
public final class PedometerManager: Sendable {
    /// The source's shared pipeline (held, so the engine's service stays alive).
    public let service: MotionService
    public let engine: ActivityEngine
    private let updates = Mutex<UInt64?>(nil)
    private let events = Mutex<UInt64?>(nil)

    public convenience init(source: any IMUSource) {
        self.init(service: .shared(for: source))
    }

    public init(service: MotionService) {
        self.service = service
        engine = service.activityEngine
    }

    // MARK: Availability (class methods in Core Motion; here they depend on the source)

    /// Steps are counted from the accelerometer.
    public func isStepCountingAvailable() -> Bool { engine.isAvailable }
    /// Distance is the sum of step lengths (configured, or from height and cadence: `PedometerConfiguration.stepLength(cadence:)`).
    public func isDistanceAvailable() -> Bool { engine.isAvailable }
    /// Floors need a barometer; no source delivers pressure yet.
    public func isFloorCountingAvailable() -> Bool { false }
    public func isPaceAvailable() -> Bool { engine.isAvailable }
    public func isCadenceAvailable() -> Bool { engine.isAvailable }
    public func isPedometerEventTrackingAvailable() -> Bool { engine.isAvailable }

    // MARK: Live updates

    /// Calls `handler` on `queue` with the totals since `start` (may be in the past: the
    /// history is counted in) whenever the step count changes, at most once a second.
    /// Errors once: `.notAvailable`, `.sourceStartFailed`.
    public func startUpdates(from start: UTCInstant, to queue: DispatchQueue = DispatchQueue(label: "edgemotion.pedometer"),
                             withHandler handler: @escaping @Sendable (PedometerData?, MotionError?) -> Void) {
        stopUpdates()
        guard startEngine(available: isStepCountingAvailable(), queue: queue, handler: handler) else { return }
        let id = engine.addPedometerObserver(from: start.secondsSince1970, queue: queue, handler: handler)
        updates.withLock { $0 = id }
    }

    /// Starts the shared engine for a new subscription; on failure tells `handler` once (on
    /// `queue`) why — `.notAvailable` without an accelerometer, else the start error — and
    /// returns false.
    private func startEngine<Value>(available: Bool, queue: DispatchQueue,
                                    handler: @escaping @Sendable (Value?, MotionError?) -> Void) -> Bool {
        guard available else {
            queue.async { handler(nil, MotionError(.notAvailable, detail: "\(self.engine.service.capabilities.name) has no accelerometer")) }
            return false
        }
        do {
            try engine.start()
        } catch {
            queue.async { handler(nil, error) }
            return false
        }
        return true
    }

    public func stopUpdates() {
        if let id = updates.withLock({ id -> UInt64? in defer { id = nil }; return id }) { engine.removePedometerObserver(id) }
    }

    /// Calls `handler` on `queue` when walking pauses or resumes (`startEventUpdates(handler:)`).
    public func startEventUpdates(to queue: DispatchQueue = DispatchQueue(label: "edgemotion.pedometer.events"),
                                  handler: @escaping @Sendable (PedometerEvent?, MotionError?) -> Void) {
        stopEventUpdates()
        guard startEngine(available: isPedometerEventTrackingAvailable(), queue: queue, handler: handler) else { return }
        let id = engine.addEventObserver(queue: queue, handler: handler)
        events.withLock { $0 = id }
    }

    public func stopEventUpdates() {
        if let id = events.withLock({ id -> UInt64? in defer { id = nil }; return id }) { engine.removeEventObserver(id) }
    }

    // MARK: History

    /// Steps and distance in `[start, end)`, delivered to `handler` on `queue`
    /// (`queryPedometerData(from:to:withHandler:)`). Cadence and pace are not kept in the history
    /// and are 0.
    public func queryPedometerData(from start: UTCInstant, to end: UTCInstant, to queue: DispatchQueue = DispatchQueue.global(),
                                   withHandler handler: @escaping @Sendable (PedometerData?, MotionError?) -> Void) {
        guard isStepCountingAvailable() else {
            queue.async { handler(nil, MotionError(.notAvailable, detail: "\(self.engine.service.capabilities.name) has no accelerometer")) }
            return
        }
        let engine = self.engine
        DispatchQueue.global().async {
            do {
                let t = try engine.pedometerTotals(from: start.secondsSince1970, to: end.secondsSince1970)
                let data = PedometerData(startDate: start.secondsSince1970, endDate: end.secondsSince1970, numberOfSteps: t.steps, distance: t.distance,
                                         floorsAscended: t.floorsAscended, floorsDescended: t.floorsDescended)
                queue.async { handler(data, nil) }
            } catch {
                let e = MotionActivityManager.motionError(error)
                queue.async { handler(nil, e) }
            }
        }
    }

    /// `queryPedometerData` as an `async` call.
    public func pedometerData(from start: UTCInstant, to end: UTCInstant) async throws(MotionError) -> PedometerData {
        let result: Result<PedometerData, MotionError> = await withCheckedContinuation { c in
            queryPedometerData(from: start, to: end) { data, error in
                c.resume(returning: data.map { .success($0) } ?? .failure(error ?? MotionError(.nilData)))
            }
        }
        return try result.get()
    }

    deinit {
        stopUpdates()
        stopEventUpdates()
    }
}
