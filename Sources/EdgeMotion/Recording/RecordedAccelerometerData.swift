import MotionCore

/// Core Motion's `CMRecordedAccelerometerData`: one recorded accelerometer reading.
@frozen
public struct RecordedAccelerometerData: Hashable, Sendable, BitwiseCopyable {
    /// Unique, increasing identifier (the source's sample sequence number).
    public var identifier: UInt64
    /// Seconds of `CLOCK_MONOTONIC` when the sample was taken (`CMLogItem.timestamp`).
    public var timestamp: Double
    /// Wall-clock time of the sample, seconds since 1970-01-01 UTC (`startDate`).
    public var startDate: Double
    /// Acceleration in g, sensor frame, Core Motion sign convention.
    public var acceleration: Acceleration

    @inlinable
    public init(identifier: UInt64, timestamp: Double, startDate: Double, acceleration: Acceleration) {
        self.identifier = identifier
        self.timestamp = timestamp
        self.startDate = startDate
        self.acceleration = acceleration
    }
}
