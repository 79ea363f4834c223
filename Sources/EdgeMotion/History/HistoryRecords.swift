import MotionCore

/// One stored activity change. `activity.startDate` is **UTC seconds since the Unix epoch** here
/// (converted from the sample clock when recorded), `previousDuration` in seconds.
public struct ActivityRecord: Sendable, Hashable {
    public var activity: MotionActivity

    public init(activity: MotionActivity) { self.activity = activity }

    /// Start, UTC seconds since the epoch.
    public var start: Double { activity.startDate }
}

/// Pedometer totals over one interval, UTC seconds since the epoch; distance in m.
public struct PedometerRecord: Sendable, Hashable {
    public var start: Double
    public var end: Double
    public var steps: Int
    public var distance: Double
    /// `nil` without a pressure channel.
    public var floorsAscended: Int?
    public var floorsDescended: Int?

    public init(start: Double, end: Double, steps: Int, distance: Double, floorsAscended: Int? = nil, floorsDescended: Int? = nil) {
        self.start = start
        self.end = end
        self.steps = steps
        self.distance = distance
        self.floorsAscended = floorsAscended
        self.floorsDescended = floorsDescended
    }
}

/// One page of a range query; `nextPage` is `nil` on the last page.
public struct HistoryPage<Item: Sendable & Hashable>: Sendable, Hashable {
    public var items: [Item]
    public var page: Int
    public var nextPage: Int?

    public init(items: [Item], page: Int, nextPage: Int?) {
        self.items = items
        self.page = page
        self.nextPage = nextPage
    }
}
