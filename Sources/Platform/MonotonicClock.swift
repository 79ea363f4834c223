#if canImport(Glibc)
import Glibc
#endif

/// Reads `CLOCK_MONOTONIC` and `CLOCK_REALTIME`, the two clocks samples are stamped with, and
/// sleeps on `CLOCK_MONOTONIC`. The one home of these calls; every deadline in the agent is a
/// `CLOCK_MONOTONIC` nanosecond count from here.
public enum MonotonicClock {
    /// Now, in nanoseconds of `CLOCK_MONOTONIC` (the clock of IIO buffer and GPIO edge timestamps).
    @inlinable
    public static func nowNanos() -> UInt64 { nanos(CLOCK_MONOTONIC) }

    /// Now, in nanoseconds since the Unix epoch (`CLOCK_REALTIME`).
    @inlinable
    public static func realtimeNanos() -> UInt64 { nanos(CLOCK_REALTIME) }

    /// CPU time the calling thread has run, ns (`CLOCK_THREAD_CPUTIME_ID`; benchmarks).
    @inlinable
    public static func threadCPUNanos() -> UInt64 { nanos(CLOCK_THREAD_CPUTIME_ID) }

    /// `clock`'s reading in nanoseconds.
    @usableFromInline @inline(__always)
    static func nanos(_ clock: clockid_t) -> UInt64 {
        var ts = Glibc.timespec()
        clock_gettime(clock, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// An absolute `timespec` for `nanos` (e.g. for `pthread_cond_timedwait` on a condition
    /// whose clock is `CLOCK_MONOTONIC`).
    @inlinable
    public static func timespec(atNanos nanos: UInt64) -> Glibc.timespec {
        Glibc.timespec(tv_sec: Int(nanos / 1_000_000_000), tv_nsec: Int(nanos % 1_000_000_000))
    }

    /// `now + d` in `CLOCK_MONOTONIC` nanoseconds, saturating at `UInt64.max`; negative durations
    /// give `now`. Resolution: whole milliseconds of `d` (as the MQTT layer has always used).
    public static func deadline(after d: Duration) -> UInt64 {
        let c = d.components
        let ms = c.seconds * 1000 + c.attoseconds / 1_000_000_000_000_000
        let now = nowNanos()
        guard ms > 0 else { return now }
        let (span, tooLong) = UInt64(ms).multipliedReportingOverflow(by: 1_000_000)
        let (sum, overflow) = now.addingReportingOverflow(span)
        return tooLong || overflow ? UInt64.max : sum
    }

    /// Sleeps until `CLOCK_MONOTONIC` reaches `nanos` (absolute, so a signal or a late wake-up
    /// never stretches the period; restarted after `EINTR`). Returns at once for a past instant.
    public static func sleep(untilNanos nanos: UInt64) {
        var ts = timespec(atNanos: nanos)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}

extension Duration {
    /// Whole nanoseconds (sub-nanosecond part truncated); 0 for a negative duration, saturating at
    /// `UInt64.max`. For `CLOCK_MONOTONIC` deadlines: `MonotonicClock.nowNanos() &+ d.nonNegativeNanoseconds`.
    @inlinable
    public var nonNegativeNanoseconds: UInt64 {
        let c = components
        guard c.seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(c.seconds).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .max }
        let (sum, overflow2) = whole.addingReportingOverflow(UInt64(Swift.max(0, c.attoseconds) / 1_000_000_000))
        return overflow2 ? .max : sum
    }

    /// Whole milliseconds, truncated toward zero within the second (negative durations keep
    /// their sign in `seconds`), e.g. 1.25 s → 1250.
    @inlinable
    public var milliseconds: Int64 {
        let c = components
        return c.seconds * 1000 + c.attoseconds / 1_000_000_000_000_000
    }

    /// As a `timespec` (seconds, nanoseconds truncated) for C calls that take a relative timeout.
    @inlinable
    public var timespecValue: timespec {
        let c = components
        return timespec(tv_sec: Int(c.seconds), tv_nsec: Int(c.attoseconds / 1_000_000_000))
    }
}
