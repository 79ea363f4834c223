import MotionCore

/// Where the activity engine keeps activity changes and step counts, and what
/// `MotionActivityManager`/`PedometerManager` query. Times are UTC seconds since 1970 (Core
/// Motion's `Date`s). Writes come from the engine's own serial queue, never the processing thread.
///
/// Two implementations: `ActivityHistoryStore` (SQLite, 7 days, survives restarts; the agent's)
/// and `InMemoryActivityHistory` (the library's default).
public protocol ActivityHistoryStoring: AnyObject, Sendable {
    /// Stores an activity change; `activity.startDate` is already UTC.
    func record(_ activity: MotionActivity, utcStart: Double) throws
    /// Stores the steps counted over one interval.
    func record(_ pedometer: PedometerRecord) throws
    /// Activity changes that started in `[from, to)`, oldest first (`startDate` in UTC).
    func activityChanges(from: Double, to: Double) throws -> [MotionActivity]
    /// Sum of the step intervals that started in `[from, to)`.
    func pedometerTotals(from: Double, to: Double) throws -> PedometerRecord
}

extension ActivityHistoryStore: ActivityHistoryStoring {
    public func activityChanges(from: Double, to: Double) throws -> [MotionActivity] {
        var out: [MotionActivity] = []
        var page: Int? = 0
        while let p = page {
            let result = try activities(from: from, to: to, page: p, pageSize: Self.maximumPageSize)
            out += result.items.map(\.activity)
            page = result.nextPage
        }
        return out
    }
}
