/// Core Motion's `CMAccelerometerData`: one accelerometer reading with its time.
@frozen
public struct AccelerometerData: Hashable, Sendable, BitwiseCopyable {
    /// Seconds of `CLOCK_MONOTONIC` when the sample was taken (`CMLogItem.timestamp`).
    public var timestamp: Double
    /// Acceleration in g, sensor frame, Core Motion sign convention.
    public var acceleration: Acceleration

    @inlinable
    public init(timestamp: Double, acceleration: Acceleration) {
        self.timestamp = timestamp
        self.acceleration = acceleration
    }
}

/// Core Motion's `CMGyroData`: one raw gyroscope reading with its time.
@frozen
public struct GyroData: Hashable, Sendable, BitwiseCopyable {
    /// Seconds of `CLOCK_MONOTONIC` when the sample was taken.
    public var timestamp: Double
    /// Rotation rate in rad/s, sensor frame, raw (not bias-corrected).
    public var rotationRate: RotationRate

    @inlinable
    public init(timestamp: Double, rotationRate: RotationRate) {
        self.timestamp = timestamp
        self.rotationRate = rotationRate
    }
}

/// Core Motion's `CMMagnetometerData`: one raw magnetometer reading with its time.
@frozen
public struct MagnetometerData: Hashable, Sendable, BitwiseCopyable {
    /// Seconds of `CLOCK_MONOTONIC` when the sample was taken.
    public var timestamp: Double
    /// Magnetic field in µT, sensor frame, uncalibrated.
    public var magneticField: MagneticField

    @inlinable
    public init(timestamp: Double, magneticField: MagneticField) {
        self.timestamp = timestamp
        self.magneticField = magneticField
    }
}

extension IMUSample {
    /// This sample's accelerometer reading in Core Motion's units and sign.
    @inlinable public var accelerometerData: AccelerometerData {
        AccelerometerData(timestamp: timestamp, acceleration: Acceleration(specificForce: specificForce))
    }
    /// This sample's raw gyroscope reading.
    @inlinable public var gyroData: GyroData {
        GyroData(timestamp: timestamp, rotationRate: RotationRate(rotationRate))
    }
    /// This sample's raw magnetometer reading.
    @inlinable public var magnetometerData: MagnetometerData {
        MagnetometerData(timestamp: timestamp, magneticField: MagneticField(magneticField))
    }
}
