#if canImport(Glibc)
import Glibc
#endif

/// Reads `CLOCK_MONOTONIC` and `CLOCK_REALTIME`, the two clocks samples are stamped with.
public enum MonotonicClock {
    /// Now, in nanoseconds of `CLOCK_MONOTONIC` (the clock of IIO buffer and GPIO edge timestamps).
    @inlinable
    public static func nowNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Now, in nanoseconds since the Unix epoch (`CLOCK_REALTIME`).
    @inlinable
    public static func realtimeNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

/// Maps monotonic sample times to UTC, from one paired reading of both clocks.
///
/// Sample times stay monotonic inside the agent; UTC is derived only where a payload needs it,
/// so a wall-clock step (NTP) never reorders samples.
@frozen
public struct WallClockMapping: Sendable, BitwiseCopyable {
    /// `realtime − monotonic`, nanoseconds.
    public var offsetNanos: Int64

    @inlinable public init(offsetNanos: Int64) { self.offsetNanos = offsetNanos }

    /// Reads both clocks now.
    public static func current() -> WallClockMapping {
        let m1 = MonotonicClock.nowNanos()
        let r = MonotonicClock.realtimeNanos()
        let m2 = MonotonicClock.nowNanos()
        let m = m1 / 2 + m2 / 2
        return WallClockMapping(offsetNanos: Int64(bitPattern: r &- m))
    }

    /// UTC nanoseconds since the Unix epoch for a monotonic timestamp.
    @inlinable
    public func utcNanos(monotonic: UInt64) -> Int64 { Int64(bitPattern: monotonic) &+ offsetNanos }
}
