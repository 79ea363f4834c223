/// Counts data-ready edges that produced no sample, from kernel edge timestamps and the expected
/// output period.
///
/// Two ways an edge is lost: several edges were queued when the reader got to them (only the newest
/// data is still in the chip's registers), or an edge never arrived or was dropped (the gap between
/// consecutive edges spans more than one period; a gap of 1.5 periods or more counts one miss).
public struct EdgeGapDetector: Sendable, Hashable {
    /// Expected time between edges, ns.
    public let periodNanos: UInt64
    /// Timestamp of the last edge seen, ns `CLOCK_MONOTONIC` (0 before the first).
    public private(set) var lastNanos: UInt64 = 0
    /// Edges lost so far.
    public private(set) var missed: UInt64 = 0
    /// Edges seen so far (including lost ones that arrived but were coalesced).
    public private(set) var edges: UInt64 = 0

    public init(periodNanos: UInt64) { self.periodNanos = max(1, periodNanos) }

    /// Registers a batch of `count` (≥ 1) edges read together; returns how many samples were lost
    /// just before the sample that is read now.
    public mutating func register(count: Int, firstNanos: UInt64, lastNanos: UInt64) -> UInt64 {
        guard count > 0 else { return 0 }
        var lost = UInt64(count - 1)
        if self.lastNanos != 0, firstNanos > self.lastNanos {
            let periods = (firstNanos - self.lastNanos + periodNanos / 2) / periodNanos
            if periods > 1 { lost += periods - 1 }
        }
        self.lastNanos = lastNanos
        edges += UInt64(count)
        missed += lost
        return lost
    }
}
