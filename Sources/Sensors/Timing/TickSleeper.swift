#if canImport(Glibc)
import Glibc
#endif
import MotionCore

/// Timer pacing for sources without a data-ready line (polled I2C, polled IIO, FIFO bursts on a
/// timer): sleep on `CLOCK_MONOTONIC` until the next tick, but never past the reader's timeout, so
/// `read(into:timeout:)` returns `.timeout` in time for the pipeline to stop or re-check.
enum TickSleeper {
    /// Sleeps until `tick` (monotonic ns) and returns `true`; when `tick` lies beyond `timeout`
    /// from now, sleeps for `timeout` only and returns `false`.
    static func sleep(untilTick tick: UInt64, timeout: Duration) -> Bool {
        let now = MonotonicClock.nowNanos()
        let (s, a) = timeout.components
        let timeoutNanos = UInt64(max(0, s)) &* 1_000_000_000 &+ UInt64(max(0, a) / 1_000_000_000)
        if tick > now &+ timeoutNanos {
            sleep(until: now &+ timeoutNanos)
            return false
        }
        sleep(until: tick)
        return true
    }

    /// Sleeps until the monotonic time `nanos` (absolute, restarted after signals).
    static func sleep(until nanos: UInt64) {
        var ts = timespec(tv_sec: Int(nanos / 1_000_000_000), tv_nsec: Int(nanos % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}
