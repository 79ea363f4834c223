import Platform

/// An instant of `CLOCK_MONOTONIC`: seconds since boot, the clock every sample is stamped with
/// (`CMLogItem.timestamp`). A different type from `UTCInstant`, so the two clocks can never be
/// mixed up in one `Double` parameter.
@frozen
public struct MonotonicInstant: Hashable, Comparable, Sendable, BitwiseCopyable, CustomStringConvertible {
    /// Seconds of `CLOCK_MONOTONIC` (since boot, not counting suspend).
    public var secondsSinceBoot: Double

    @inlinable public init(secondsSinceBoot: Double) { self.secondsSinceBoot = secondsSinceBoot }
    @inlinable public init(nanos: UInt64) { secondsSinceBoot = Double(nanos) * 1e-9 }

    /// Now.
    @inlinable public static var now: MonotonicInstant { MonotonicInstant(nanos: MonotonicClock.nowNanos()) }

    @inlinable public static func < (a: MonotonicInstant, b: MonotonicInstant) -> Bool { a.secondsSinceBoot < b.secondsSinceBoot }
    /// `seconds` later (earlier if negative).
    @inlinable public static func + (a: MonotonicInstant, seconds: Double) -> MonotonicInstant {
        MonotonicInstant(secondsSinceBoot: a.secondsSinceBoot + seconds)
    }
    /// Seconds from `b` to `a`.
    @inlinable public static func - (a: MonotonicInstant, b: MonotonicInstant) -> Double { a.secondsSinceBoot - b.secondsSinceBoot }
    /// `seconds` earlier.
    @inlinable public static func - (a: MonotonicInstant, seconds: Double) -> MonotonicInstant { MonotonicInstant(secondsSinceBoot: a.secondsSinceBoot - seconds) }

    /// The same instant in UTC, through `mapping` (one paired reading of both clocks).
    @inlinable public func utc(_ mapping: WallClockMapping = .current()) -> UTCInstant {
        UTCInstant(secondsSince1970: secondsSinceBoot + Double(mapping.offsetNanos) * 1e-9)
    }

    public var description: String { "monotonic \(secondsSinceBoot) s" }
}

/// An instant of UTC: seconds since 1970-01-01 00:00 UTC (`CLOCK_REALTIME`; Foundation's
/// `Date.timeIntervalSince1970`). A different type from `MonotonicInstant`.
@frozen
public struct UTCInstant: Hashable, Comparable, Sendable, BitwiseCopyable, CustomStringConvertible {
    /// Seconds since the Unix epoch.
    public var secondsSince1970: Double

    @inlinable public init(secondsSince1970: Double) { self.secondsSince1970 = secondsSince1970 }

    /// Now.
    @inlinable public static var now: UTCInstant { UTCInstant(secondsSince1970: Double(MonotonicClock.realtimeNanos()) * 1e-9) }

    @inlinable public static func < (a: UTCInstant, b: UTCInstant) -> Bool { a.secondsSince1970 < b.secondsSince1970 }
    /// `seconds` later (earlier if negative).
    @inlinable public static func + (a: UTCInstant, seconds: Double) -> UTCInstant {
        UTCInstant(secondsSince1970: a.secondsSince1970 + seconds)
    }
    /// Seconds from `b` to `a`.
    @inlinable public static func - (a: UTCInstant, b: UTCInstant) -> Double { a.secondsSince1970 - b.secondsSince1970 }
    /// `seconds` earlier.
    @inlinable public static func - (a: UTCInstant, seconds: Double) -> UTCInstant { UTCInstant(secondsSince1970: a.secondsSince1970 - seconds) }

    /// The same instant on `CLOCK_MONOTONIC`, through `mapping`.
    @inlinable public func monotonic(_ mapping: WallClockMapping = .current()) -> MonotonicInstant {
        MonotonicInstant(secondsSinceBoot: secondsSince1970 - Double(mapping.offsetNanos) * 1e-9)
    }

    public var description: String { "UTC \(secondsSince1970) s" }
}
