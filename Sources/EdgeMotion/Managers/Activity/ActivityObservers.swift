import Dispatch
import MotionCore
import Synchronization

/// The engine's subscribers, touched by the processing thread only when something happens (an
/// activity change, a pedometer update at most once a second, a pause/resume event), never per
/// sample.
final class ActivityObservers: Sendable {
    struct PedometerObserver: Sendable {
        var queue: DispatchQueue
        var handler: @Sendable (PedometerData?, MotionError?) -> Void
        /// Steps and distance in the history between the requested start and the subscription.
        var baseSteps: Int
        var baseDistance: Double
        /// The engine's live totals at the subscription.
        var liveSteps: Int
        var liveDistance: Double
        var from: Double
    }

    struct Lists: Sendable {
        var activity: [UInt64: (DispatchQueue, @Sendable (MotionActivity?) -> Void)] = [:]
        var pedometer: [UInt64: PedometerObserver] = [:]
        var events: [UInt64: (DispatchQueue, @Sendable (PedometerEvent?, MotionError?) -> Void)] = [:]
        var nextID: UInt64 = 1
    }

    let lists = Mutex(Lists())

    func add(_ body: (inout Lists, UInt64) -> Void) -> UInt64 {
        lists.withLock { l in
            let id = l.nextID
            l.nextID += 1
            body(&l, id)
            return id
        }
    }

    func activityChanged(_ activity: MotionActivity) {
        let targets = lists.withLock { Array($0.activity.values) }
        for (queue, handler) in targets { queue.async { handler(activity) } }
    }

    func pedometerUpdated(_ live: PedometerData) {
        let targets = lists.withLock { Array($0.pedometer.values) }
        for o in targets {
            var d = live
            d.startDate = o.from
            d.numberOfSteps = o.baseSteps + live.numberOfSteps - o.liveSteps
            d.distance = o.baseDistance + live.distance - o.liveDistance
            let data = d
            o.queue.async { o.handler(data, nil) }
        }
    }

    func event(_ event: PedometerEvent) {
        let targets = lists.withLock { Array($0.events.values) }
        for (queue, handler) in targets { queue.async { handler(event, nil) } }
    }
}
