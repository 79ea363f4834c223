/// Accuracy of the magnetometer calibration (`CMMagneticFieldCalibrationAccuracy`).
public enum MagneticFieldCalibrationAccuracy: Int, Sendable, Hashable, Comparable, CaseIterable, BitwiseCopyable {
    case uncalibrated = -1
    case low = 0
    case medium = 1
    case high = 2

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var name: String {
        switch self {
        case .uncalibrated: "uncalibrated"
        case .low: "low"
        case .medium: "medium"
        case .high: "high"
        }
    }
}

/// `CMCalibratedMagneticField`: the field with the device's own bias removed, and its accuracy.
@frozen
public struct CalibratedMagneticField: Hashable, Sendable, BitwiseCopyable {
    /// Magnetic field in µT, sensor frame, calibrated.
    public var field: MagneticField
    public var accuracy: MagneticFieldCalibrationAccuracy

    @inlinable
    public init(field: MagneticField, accuracy: MagneticFieldCalibrationAccuracy) {
        self.field = field
        self.accuracy = accuracy
    }

    public static let unavailable = CalibratedMagneticField(field: .zero, accuracy: .uncalibrated)
}

/// Core Motion's `CMDeviceMotion`: the fused state of the device at one instant.
@frozen
public struct DeviceMotion: Hashable, Sendable, BitwiseCopyable {
    /// Seconds of `CLOCK_MONOTONIC` of the sample this state was computed from.
    public var timestamp: Double
    /// Orientation relative to `referenceFrame`.
    public var attitude: Attitude
    /// The frame `attitude` is relative to.
    public var referenceFrame: AttitudeReferenceFrame
    /// Rotation rate in rad/s, sensor frame, bias-corrected.
    public var rotationRate: RotationRate
    /// Gravity in g, sensor frame, Core Motion sign (face up at rest: `z = −1`).
    public var gravity: Acceleration
    /// Acceleration the user gives the device, in g, sensor frame: total minus gravity.
    public var userAcceleration: Acceleration
    /// Calibrated magnetic field and its accuracy (`.unavailable` without a magnetometer).
    public var magneticField: CalibratedMagneticField
    /// Heading in degrees from north (0–360, clockwise seen from above) in the north-referenced
    /// frames; −1 when not available, as Core Motion does.
    public var heading: Double
    /// Gyroscope bias currently subtracted, rad/s, sensor frame.
    public var gyroBias: Vector3
    /// The filter believes the device is at rest.
    public var restDetected: Bool
    /// The filter is rejecting a disturbed magnetic field.
    public var magneticDisturbance: Bool

    @inlinable
    public init(
        timestamp: Double, attitude: Attitude, referenceFrame: AttitudeReferenceFrame,
        rotationRate: RotationRate, gravity: Acceleration, userAcceleration: Acceleration,
        magneticField: CalibratedMagneticField = .unavailable, heading: Double = -1,
        gyroBias: Vector3 = .zero, restDetected: Bool = false, magneticDisturbance: Bool = false
    ) {
        self.timestamp = timestamp
        self.attitude = attitude
        self.referenceFrame = referenceFrame
        self.rotationRate = rotationRate
        self.gravity = gravity
        self.userAcceleration = userAcceleration
        self.magneticField = magneticField
        self.heading = heading
        self.gyroBias = gyroBias
        self.restDetected = restDetected
        self.magneticDisturbance = magneticDisturbance
    }
}
