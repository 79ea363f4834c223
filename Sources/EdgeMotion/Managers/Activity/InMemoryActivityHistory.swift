import MotionCore
import Synchronization

/// Activity and step history in memory: what the engine saw since it started, at most
/// `retention` seconds (7 days, like Core Motion) and `maximumEntries` of each kind. Lost when the
/// process ends; use `ActivityHistoryStore` to keep it.
public final class InMemoryActivityHistory: ActivityHistoryStoring {
    public let retention: Double
    public let maximumEntries: Int
    private let state = Mutex<(activities: [MotionActivity], steps: [PedometerRecord])>(([], []))

    public init(retention: Double = 7 * 86_400, maximumEntries: Int = 100_000) {
        self.retention = retention
        self.maximumEntries = maximumEntries
    }

    public func record(_ activity: MotionActivity, utcStart: Double) throws {
        var a = activity
        a.startDate = utcStart
        state.withLock { s in
            s.activities.append(a)
            let cutoff = utcStart - retention
            s.activities.removeAll { $0.startDate < cutoff }
            if s.activities.count > maximumEntries { s.activities.removeFirst(s.activities.count - maximumEntries) }
        }
    }

    public func record(_ pedometer: PedometerRecord) throws {
        state.withLock { s in
            s.steps.append(pedometer)
            let cutoff = pedometer.end - retention
            s.steps.removeAll { $0.end < cutoff }
            if s.steps.count > maximumEntries { s.steps.removeFirst(s.steps.count - maximumEntries) }
        }
    }

    public func activityChanges(from: Double, to: Double) throws -> [MotionActivity] {
        try Self.check(from, to)
        return state.withLock { s in s.activities.filter { $0.startDate >= from && $0.startDate < to } }
    }

    public func pedometerTotals(from: Double, to: Double) throws -> PedometerRecord {
        try Self.check(from, to)
        return state.withLock { s in
            var total = PedometerRecord(start: from, end: to, steps: 0, distance: 0)
            for r in s.steps where r.start >= from && r.start < to {
                total.steps += r.steps
                total.distance += r.distance
            }
            return total
        }
    }

    private static func check(_ from: Double, _ to: Double) throws(MotionError) {
        guard from.isFinite, to.isFinite, from <= to else {
            throw MotionError(.invalidParameter, detail: "range from \(from) to \(to): 'from' must be a time before 'to'")
        }
    }
}
