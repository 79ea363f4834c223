import Platform

/// How a replayed recording hands out samples at their recorded times, for one `read`: the one
/// pacing of `ReplaySource` (CSV) and `RecordedFileSource` (`.emr`).
///
/// Paced, a sample whose time (re-based onto `CLOCK_MONOTONIC`) is still ahead is waited for when
/// it would be the read's first, ends the read when samples were already taken (they go out now),
/// and makes the read time out at its deadline when it lies beyond. Unpaced, every sample is taken
/// at once (as fast as the consumer takes them).
public struct ReplayPacer: Sendable {
    /// What to do with the next sample.
    public enum Decision: Sendable, Equatable {
        /// Deliver it (its time has come, waited for if needed).
        case take
        /// Return the samples taken so far; this one is for a later read.
        case stop
        /// Nothing was due before the read's deadline (already waited until then).
        case timeout
    }

    private let paced: Bool
    private let deadline: UInt64

    /// - Parameters:
    ///   - paced: whether samples go out at their recorded times.
    ///   - timeout: how long this read may wait.
    public init(paced: Bool, timeout: Duration) {
        self.paced = paced
        deadline = paced ? MonotonicClock.nowNanos() &+ timeout.nonNegativeNanoseconds : 0
    }

    /// The decision for a sample due at `stamp` (monotonic ns) when `taken` samples were already
    /// taken in this read. Blocks (sleeps) only for the read's first sample.
    public func admit(_ stamp: UInt64, taken: Int) -> Decision {
        guard paced else { return .take }
        let now = MonotonicClock.nowNanos()
        guard stamp > now else { return .take }
        if taken > 0 { return .stop }
        if stamp > deadline {
            MonotonicClock.sleep(untilNanos: deadline)
            return .timeout
        }
        MonotonicClock.sleep(untilNanos: stamp)
        return .take
    }
}
