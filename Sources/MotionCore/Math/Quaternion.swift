/// A quaternion `w + xi + yj + zk`, scalar first (Hamilton convention).
///
/// Attitudes are unit quaternions that rotate *sensor-frame* vectors into the *reference
/// (earth) frame*: `v_earth = q ⊗ v_sensor ⊗ q*` (`q.rotate(v)`).
@frozen
public struct Quaternion: Hashable, Sendable, BitwiseCopyable {
    public var w: Double
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable
    public init(w: Double, x: Double, y: Double, z: Double) {
        self.w = w
        self.x = x
        self.y = y
        self.z = z
    }

    /// The identity rotation.
    public static let identity = Quaternion(w: 1, x: 0, y: 0, z: 0)

    /// Rotation by `angle` radians about `axis` (need not be normalised; zero axis gives identity).
    @inlinable
    public init(axis: Vector3, angle: Double) {
        let n = axis.norm
        guard n > 0 else { self = .identity; return }
        let s = (angle / 2).sin / n
        self.init(w: (angle / 2).cos, x: axis.x * s, y: axis.y * s, z: axis.z * s)
    }

    /// The rotation by the rotation vector `v` (axis × angle in rad), exact for any magnitude.
    @inlinable
    public init(rotationVector v: Vector3) {
        self.init(axis: v, angle: v.norm)
    }

    @inlinable public var vector: Vector3 { Vector3(x, y, z) }
    @inlinable public var conjugate: Quaternion { Quaternion(w: w, x: -x, y: -y, z: -z) }
    @inlinable public var normSquared: Double { w * w + x * x + y * y + z * z }
    @inlinable public var norm: Double { normSquared.squareRoot() }

    @inlinable
    public var normalized: Quaternion {
        let n = norm
        return n > 0 ? Quaternion(w: w / n, x: x / n, y: y / n, z: z / n) : .identity
    }

    /// Hamilton product `a ⊗ b` (apply `b` first, then `a`, when both rotate vectors).
    @inlinable
    public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
    }

    /// Rotates `v` by this (unit) quaternion: `q ⊗ v ⊗ q*`.
    @inlinable
    public func rotate(_ v: Vector3) -> Vector3 {
        // t = 2 q_vec × v;  v' = v + w t + q_vec × t
        let q = vector
        let t = 2 * q.cross(v)
        return v + w * t + q.cross(t)
    }

    /// Rotates `v` by the inverse of this (unit) quaternion: `q* ⊗ v ⊗ q`.
    @inlinable
    public func inverseRotate(_ v: Vector3) -> Vector3 { conjugate.rotate(v) }

    /// The rotation angle in radians, in [0, π].
    @inlinable
    public var angle: Double { 2 * Swift.min(1, Swift.abs(w) / Swift.max(norm, .leastNormalMagnitude)).acos }

    /// Rotation about the vertical (z) axis by `angle` radians.
    @inlinable
    public static func aboutZ(_ angle: Double) -> Quaternion {
        Quaternion(w: (angle / 2).cos, x: 0, y: 0, z: (angle / 2).sin)
    }

    /// Rotation about the x axis by `angle` radians.
    @inlinable
    public static func aboutX(_ angle: Double) -> Quaternion {
        Quaternion(w: (angle / 2).cos, x: (angle / 2).sin, y: 0, z: 0)
    }

    /// Rotation about the y axis by `angle` radians.
    @inlinable
    public static func aboutY(_ angle: Double) -> Quaternion {
        Quaternion(w: (angle / 2).cos, x: 0, y: (angle / 2).sin, z: 0)
    }
}
