import Dispatch
import MotionCore
import Sensors
import Synchronization

/// Core Motion's `CMMotionActivityManager`: what the carrier of the device is doing (stationary,
/// walking, running, cycling, automotive), delivered when it changes, and the history of changes.
///
/// Built on the source's `ActivityEngine` (one detector per source, however many managers).
/// `startDate`s are UTC seconds since 1970 (Core Motion's `Date`), in updates and queries alike.
public final class MotionActivityManager: Sendable {
    /// The source's shared pipeline (held, so the engine's service stays alive).
    public let service: MotionService
    public let engine: ActivityEngine
    private let subscription = Mutex<Subscription>(Subscription())

    private struct Subscription {
        var id: UInt64?
        var continuation: AsyncStream<MotionActivity>.Continuation?
        var startError: MotionError?
    }

    public convenience init(source: any IMUSource) {
        self.init(service: .shared(for: source))
    }

    public init(service: MotionService) {
        self.service = service
        engine = service.activityEngine
    }

    /// Whether activity detection works on this source (`isActivityAvailable()`, a class method
    /// in Core Motion): it needs an accelerometer; a gyroscope helps tell cycling.
    public func isActivityAvailable() -> Bool { engine.isAvailable }

    /// Calls `handler` on `queue` with the current activity (when one has settled) and then on
    /// every change. Starts the engine if needed; on a source without an accelerometer nothing
    /// is delivered, as in Core Motion. When the source cannot be started (a missing device, a
    /// bus that does not answer) `handler` is called once with `nil` and nothing follows; the
    /// reason is in `startError`. Core Motion's handler has no error argument, so `nil` is the
    /// only way to say so there.
    public func startActivityUpdates(to queue: DispatchQueue, withHandler handler: @escaping @Sendable (MotionActivity?) -> Void) {
        _ = subscribe(queue: queue, handler: handler)
    }

    /// Why the last `startActivityUpdates` / `activityUpdates()` delivers nothing: the source
    /// did not start (`.sourceStartFailed`, its detail names the device) or has no accelerometer
    /// (`.motionActivityNotAvailable`); `nil` after a start that worked.
    public var startError: MotionError? { subscription.withLock { $0.startError } }

    /// Starts the engine and adds `handler`; false (after telling `handler` `nil` once when the
    /// source failed) when the engine cannot run.
    private func subscribe(queue: DispatchQueue, handler: @escaping @Sendable (MotionActivity?) -> Void) -> Bool {
        stopActivityUpdates()
        do {
            try engine.start()
        } catch {
            subscription.withLock { $0.startError = error }
            if error.code != .motionActivityNotAvailable { queue.async { handler(nil) } }
            return false
        }
        let id = engine.addActivityObserver(queue: queue, handler: handler)
        subscription.withLock { $0.id = id; $0.startError = nil }
        if let current = engine.currentActivity { queue.async { handler(current) } }
        return true
    }

    /// Activity changes as an `AsyncSequence`; finishes on `stopActivityUpdates()`.
    public func activityUpdates() -> AsyncStream<MotionActivity> {
        let (stream, continuation) = AsyncStream<MotionActivity>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let started = subscribe(queue: DispatchQueue(label: "edgemotion.activity.updates")) { activity in
            if let activity { continuation.yield(activity) }
        }
        // A source that cannot start or has no accelerometer: the sequence ends at once (`startError` says why).
        guard started else {
            continuation.finish()
            return stream
        }
        subscription.withLock { $0.continuation = continuation }
        return stream
    }

    public func stopActivityUpdates() {
        let (id, continuation) = subscription.withLock { s in
            defer { s.id = nil; s.continuation = nil }
            return (s.id, s.continuation)
        }
        if let id { engine.removeActivityObserver(id) }
        continuation?.finish()
    }

    /// The activity changes that started in `[start, end)`, oldest first, delivered
    /// to `handler` on `queue` (`queryActivityStarting(from:to:to:withHandler:)`). Errors:
    /// `.motionActivityNotAvailable`, `.invalidParameter` (bad range), `.unknown` (the history
    /// store failed; its message says why).
    public func queryActivityStarting(from start: UTCInstant, to end: UTCInstant, to queue: DispatchQueue,
                                      withHandler handler: @escaping @Sendable ([MotionActivity]?, MotionError?) -> Void) {
        guard isActivityAvailable() else {
            queue.async { handler(nil, MotionError(.motionActivityNotAvailable, detail: "\(self.engine.service.capabilities.name) has no accelerometer")) }
            return
        }
        let engine = self.engine
        engine.onHistoryQueue {
            do {
                let result = try engine.history.activityChanges(from: start.secondsSince1970, to: end.secondsSince1970)
                queue.async { handler(result, nil) }
            } catch {
                let e = MotionActivityManager.motionError(error)
                queue.async { handler(nil, e) }
            }
        }
    }

    /// `queryActivityStarting` as an `async` call.
    public func activities(from start: UTCInstant, to end: UTCInstant) async throws(MotionError) -> [MotionActivity] {
        let result: Result<[MotionActivity], MotionError> = await withCheckedContinuation { c in
            queryActivityStarting(from: start, to: end, to: DispatchQueue.global()) { items, error in
                c.resume(returning: items.map { .success($0) } ?? .failure(error ?? MotionError(.nilData)))
            }
        }
        return try result.get()
    }

    static func motionError(_ error: any Error) -> MotionError {
        if let e = error as? MotionError { return e }
        if let h = error as? HistoryError, h.kind == .invalidQuery { return MotionError(.invalidParameter, detail: h.description) }
        return MotionError(.unknown, detail: "\(error)")
    }

    deinit { stopActivityUpdates() }
}
