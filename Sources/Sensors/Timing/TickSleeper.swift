#if canImport(Glibc)
import Glibc
#endif
import Platform
import MotionCore

/// Timer pacing for sources without a data-ready line (polled I2C, polled IIO, FIFO bursts on a
/// timer): sleep on `CLOCK_MONOTONIC` until the next tick, but never past the reader's timeout, so
/// `read(into:timeout:)` returns `.timeout` in time for the pipeline to stop or re-check.
enum TickSleeper {
    /// Sleeps until `tick` (monotonic ns) and returns `true`; when `tick` lies beyond `timeout`
    /// from now, sleeps for `timeout` only and returns `false`.
    static func sleep(untilTick tick: UInt64, timeout: Duration) -> Bool {
        let now = MonotonicClock.nowNanos()
        let timeoutNanos = timeout.nonNegativeNanoseconds
        if tick > now &+ timeoutNanos {
            MonotonicClock.sleep(untilNanos: now &+ timeoutNanos)
            return false
        }
        MonotonicClock.sleep(untilNanos: tick)
        return true
    }
}
