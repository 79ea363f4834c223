/// Core Motion's `CMAttitude`: the device's orientation relative to a reference frame.
///
/// `quaternion` rotates sensor-frame vectors into the reference frame (`v_ref = q ⊗ v ⊗ q*`).
/// Euler angles follow Core Motion: the rotation is `Rz(yaw) · Rx(pitch) · Ry(roll)`, i.e.
/// **pitch** about the device x axis, **roll** about the device y axis, **yaw** about the
/// vertical; all in radians, right-handed.
@frozen
public struct Attitude: Hashable, Sendable, BitwiseCopyable {
    /// Unit quaternion, sensor → reference frame.
    public var quaternion: Quaternion

    @inlinable public init(quaternion: Quaternion) { self.quaternion = quaternion }

    /// Builds the attitude with the given Core Motion Euler angles (radians).
    @inlinable
    public init(roll: Double, pitch: Double, yaw: Double) {
        self.init(quaternion: Quaternion.aboutZ(yaw) * Quaternion.aboutX(pitch) * Quaternion.aboutY(roll))
    }

    /// The rotation matrix, sensor → reference frame (`CMAttitude.rotationMatrix`).
    @inlinable public var rotationMatrix: RotationMatrix { RotationMatrix(quaternion) }

    /// Rotation about the device's y axis, radians, in (−π, π].
    @inlinable public var roll: Double {
        let q = quaternion
        return Double.atan2(2 * (q.w * q.y - q.x * q.z), 1 - 2 * (q.x * q.x + q.y * q.y))
    }

    /// Rotation about the device's x axis, radians, in [−π/2, π/2].
    @inlinable public var pitch: Double {
        let q = quaternion
        return (2 * (q.w * q.x + q.y * q.z)).asin
    }

    /// Rotation about the vertical axis, radians, in (−π, π]; counter-clockwise seen from above.
    @inlinable public var yaw: Double {
        let q = quaternion
        return Double.atan2(2 * (q.w * q.z - q.x * q.y), 1 - 2 * (q.x * q.x + q.z * q.z))
    }

    /// Core Motion's roll and pitch (radians) of every attitude whose reference "up" (+z) is
    /// `up` in the sensor frame (any length > 0; a resting accelerometer's specific force works):
    /// the same angles `roll` and `pitch` give, without a heading. With the rotation
    /// `Rz(yaw)·Rx(pitch)·Ry(roll)`, up in the sensor frame is
    /// `(−sin roll·cos pitch, sin pitch, cos roll·cos pitch)`, so pitch (about x, positive raises
    /// the +y edge) = atan2(u_y, √(u_x² + u_z²)) in [−π/2, π/2] and roll (about y, positive
    /// lowers the +x edge) = atan2(−u_x, u_z) in (−π, π].
    @inlinable
    public static func rollAndPitch(up u: Vector3) -> (roll: Double, pitch: Double) {
        (Double.atan2(-u.x, u.z), Double.atan2(u.y, (u.x * u.x + u.z * u.z).squareRoot()))
    }

    /// `CMAttitude.multiply(byInverseOf:)`: this attitude relative to `reference`.
    @inlinable
    public func relative(to reference: Attitude) -> Attitude {
        Attitude(quaternion: reference.quaternion.conjugate * quaternion)
    }
}
