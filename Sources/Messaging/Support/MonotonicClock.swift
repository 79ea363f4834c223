import MotionCore

extension MonotonicClock {
    /// `now + d` in CLOCK_MONOTONIC nanoseconds, saturating; negative durations give `now`.
    /// The time base of every deadline in this module.
    static func deadline(after d: Duration) -> UInt64 {
        let ms = d.milliseconds
        let now = nowNanos()
        guard ms > 0 else { return now }
        let (sum, overflow) = now.addingReportingOverflow(UInt64(ms) &* 1_000_000)
        return overflow ? UInt64.max : sum
    }
}
