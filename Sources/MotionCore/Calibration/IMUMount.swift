/// The mounts of one source: the accelerometer and gyroscope (one chip, one rotation) and the
/// magnetometer (often another chip, its own rotation). Applied to every raw sample before
/// anything else in the pipeline (raw streams, fusion, events), so downstream everything is in
/// **board axes**: `v_board = R · v_chip`, IIO convention (+9.81 m/s² on the up axis at rest).
///
/// Value type, two 3×3 multiplies per sample, no allocation; `isIdentity` skips even those.
@frozen
public struct IMUMount: Sendable, Hashable, BitwiseCopyable {
    /// Chip-to-board rotation of the accelerometer and the gyroscope.
    public let inertial: SensorMount
    /// Chip-to-board rotation of the magnetometer.
    public let magnetometer: SensorMount
    /// Both rotations are the identity (nothing to do per sample).
    public let isIdentity: Bool

    public init(inertial: SensorMount = .identity, magnetometer: SensorMount = .identity) {
        self.inertial = inertial
        self.magnetometer = magnetometer
        isIdentity = inertial == .identity && magnetometer == .identity
    }

    /// The same rotation for all three sensors (one chip, or chips with aligned axes).
    public init(all m: SensorMount) { self.init(inertial: m, magnetometer: m) }

    public static let identity = IMUMount()

    /// `sample` with its specific force and rotation rate in board axes (`inertial`) and its
    /// magnetic field in board axes (`magnetometer`). Timestamps, sequence and flags unchanged.
    @inlinable
    public func apply(_ sample: IMUSample) -> IMUSample {
        if isIdentity { return sample }
        var s = sample
        s.specificForce = inertial.matrix * sample.specificForce
        s.rotationRate = inertial.matrix * sample.rotationRate
        s.magneticField = magnetometer.matrix * sample.magneticField
        return s
    }
}
