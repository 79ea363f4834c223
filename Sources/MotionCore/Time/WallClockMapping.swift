/// Maps monotonic sample times to UTC, from one paired reading of both clocks.
///
/// Sample times stay monotonic inside the agent; UTC is derived only where a payload needs it,
/// so a wall-clock step (NTP) never reorders samples.
@frozen
public struct WallClockMapping: Sendable, BitwiseCopyable {
    /// `realtime − monotonic`, nanoseconds.
    public var offsetNanos: Int64
    /// No UTC below this (set by a backward step, see `remapped`), so UTC never goes back.
    public var floorUTCNanos: Int64 = .min

    @inlinable public init(offsetNanos: Int64) { self.offsetNanos = offsetNanos }

    @inlinable public init(offsetNanos: Int64, floorUTCNanos: Int64) {
        self.offsetNanos = offsetNanos
        self.floorUTCNanos = floorUTCNanos
    }

    /// A step of the realtime clock against the monotonic one.
    public struct Step: Sendable {
        /// How far realtime moved relative to monotonic time, nanoseconds (+: forward).
        public var nanos: Int64
        /// The mapping to use from now on.
        public var mapping: WallClockMapping
    }

    /// Compares a fresh paired reading of both clocks with this mapping. When realtime moved by
    /// more than `thresholdNanos` relative to monotonic time (NTP's first sync on a board without
    /// an RTC, a manual `date -s`), returns the step and the new mapping: a forward step applies
    /// at once; after a backward step UTC holds at the last mapped value (`floorUTCNanos`, the
    /// old mapping at `monotonicNanos`) until the new mapping passes it — so stamped samples are
    /// never reordered. nil when the clocks agree within the threshold.
    public func remapped(realtimeNanos: UInt64, monotonicNanos: UInt64, thresholdNanos: Int64 = 1_000_000_000) -> Step? {
        let offset = Int64(bitPattern: realtimeNanos &- monotonicNanos)
        let step = offset &- offsetNanos
        guard step > thresholdNanos || step < -thresholdNanos else { return nil }
        let floor = max(floorUTCNanos, utcNanos(monotonic: monotonicNanos))
        return Step(nanos: step, mapping: WallClockMapping(offsetNanos: offset, floorUTCNanos: step < 0 ? floor : floorUTCNanos))
    }

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
    public func utcNanos(monotonic: UInt64) -> Int64 { max(Int64(bitPattern: monotonic) &+ offsetNanos, floorUTCNanos) }
}
