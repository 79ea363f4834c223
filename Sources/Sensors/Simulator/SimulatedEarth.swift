import MotionCore

/// The simulated world: an ENU earth frame (x east, y north, z up) with standard gravity and a
/// mid-latitude geomagnetic field pointing north and down.
public struct SimulatedEarth: Sendable, Hashable {
    /// Gravity magnitude, m/s². The accelerometer at rest reads `+gravity` on the up axis.
    public var gravity: Double
    /// Total field intensity, µT.
    public var fieldIntensity: Double
    /// Dip (inclination) angle below the horizontal, radians (positive: field points down, as in
    /// the northern hemisphere).
    public var dip: Double

    public init(gravity: Double = standardGravity, fieldIntensity: Double = 48, dip: Double = 64.0.radians) {
        self.gravity = gravity
        self.fieldIntensity = fieldIntensity
        self.dip = dip
    }

    /// Central Europe: 48 µT, 64° dip.
    public static let standard = SimulatedEarth()

    /// The geomagnetic field in µT, ENU: horizontal part towards +y (magnetic north = y), vertical
    /// part downwards.
    @inlinable
    public var magneticFieldENU: Vector3 {
        Vector3(0, fieldIntensity * dip.cos, -fieldIntensity * dip.sin)
    }

    /// Specific force in the sensor frame, m/s², for an attitude (sensor → ENU) and a linear
    /// acceleration in m/s², ENU: `q* ⊗ (a + g·ẑ) ⊗ q`.
    @inlinable
    public func specificForce(attitude q: Quaternion, linearAcceleration a: Vector3) -> Vector3 {
        q.inverseRotate(a + Vector3(0, 0, gravity))
    }

    /// The earth field in the sensor frame, µT: `q* ⊗ B ⊗ q`.
    @inlinable
    public func magneticField(attitude q: Quaternion) -> Vector3 {
        q.inverseRotate(magneticFieldENU)
    }
}
