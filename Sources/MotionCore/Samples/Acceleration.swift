/// Acceleration in g (9.80665 m/s²), sensor frame, with Core Motion's sign convention
/// (`CMAcceleration`): a device lying face up at rest reads `z = −1`.
///
/// That is the negated specific force: `Acceleration(specificForce:)` converts from what an
/// accelerometer (and Linux IIO) reports, +9.81 m/s² on the axis pointing up.
@frozen
public struct Acceleration: Hashable, Sendable, BitwiseCopyable {
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// Converts specific force (m/s², positive up at rest) to Core Motion's acceleration in g.
    @inlinable
    public init(specificForce f: Vector3) {
        self.init(x: -f.x / standardGravity, y: -f.y / standardGravity, z: -f.z / standardGravity)
    }

    @inlinable public init(_ v: Vector3) { self.init(x: v.x, y: v.y, z: v.z) }
    @inlinable public var vector: Vector3 { Vector3(x, y, z) }
    public static let zero = Acceleration(x: 0, y: 0, z: 0)
}

/// Rotation rate in rad/s about the sensor's x, y and z axes (`CMRotationRate`), right-handed.
@frozen
public struct RotationRate: Hashable, Sendable, BitwiseCopyable {
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    @inlinable public init(_ v: Vector3) { self.init(x: v.x, y: v.y, z: v.z) }
    @inlinable public var vector: Vector3 { Vector3(x, y, z) }
    public static let zero = RotationRate(x: 0, y: 0, z: 0)
}

/// Magnetic field in µT, sensor frame (`CMMagneticField`).
@frozen
public struct MagneticField: Hashable, Sendable, BitwiseCopyable {
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    @inlinable public init(_ v: Vector3) { self.init(x: v.x, y: v.y, z: v.z) }
    @inlinable public var vector: Vector3 { Vector3(x, y, z) }
    public static let zero = MagneticField(x: 0, y: 0, z: 0)
}
