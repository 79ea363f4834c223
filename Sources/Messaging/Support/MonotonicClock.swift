#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC in nanoseconds; the time base of every deadline in this module.
enum MonotonicClock {
    static func nowNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// `now + d`, saturating; negative durations give `now`.
    static func deadline(after d: Duration) -> UInt64 {
        let ms = d.milliseconds
        let now = nowNanos()
        guard ms > 0 else { return now }
        let (sum, overflow) = now.addingReportingOverflow(UInt64(ms) &* 1_000_000)
        return overflow ? UInt64.max : sum
    }
}
