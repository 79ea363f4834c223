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

    /// Moves `tick` past a wake-up at `woke` (all monotonic ns, ticks `period` apart) and returns
    /// how many whole periods the wake-up overran: those ticks are skipped and count as lost.
    static func advance(_ tick: inout UInt64, period: UInt64, woke: UInt64) -> UInt64 {
        var lost: UInt64 = 0
        if woke > tick &+ period {
            lost = (woke - tick) / period
            tick &+= lost &* period
        }
        tick &+= period
        return lost
    }
}
