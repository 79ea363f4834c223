/// The delays between attempts to re-open a failed source: `initial` seconds, doubling after each
/// failed attempt, never more than `maximum` (config `source.retry_max_s`). Reset when samples flow.
///
/// A value type with no clock: the acquisition thread asks `next()` for how long to wait before the
/// next attempt, so the schedule is testable on its own.
public struct SourceRetryBackoff: Sendable, Hashable {
    /// First delay, seconds.
    public let initial: Double
    /// Cap on the delay, seconds.
    public let maximum: Double
    /// Delay the next attempt waits, seconds.
    public private(set) var current: Double
    /// Attempts made since the last reset.
    public private(set) var attempts = 0

    public init(initial: Double = 0.5, maximum: Double = 10) {
        self.maximum = max(0.01, maximum)
        self.initial = min(max(0.01, initial), self.maximum)
        current = self.initial
    }

    /// The delay before the next attempt, seconds; doubles the one after it (capped).
    public mutating func next() -> Double {
        let delay = current
        current = min(current * 2, maximum)
        attempts += 1
        return delay
    }

    /// The source works again: the next failure starts from `initial`.
    public mutating func reset() {
        current = initial
        attempts = 0
    }
}
