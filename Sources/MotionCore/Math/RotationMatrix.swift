/// A 3×3 rotation matrix, row-major, with Core Motion's `CMRotationMatrix` element names.
///
/// It maps sensor-frame vectors into the reference frame, like the quaternion it came from:
/// `v_ref = R · v_sensor`.
@frozen
public struct RotationMatrix: Hashable, Sendable, BitwiseCopyable {
    public var m11: Double, m12: Double, m13: Double
    public var m21: Double, m22: Double, m23: Double
    public var m31: Double, m32: Double, m33: Double

    @inlinable
    public init(
        m11: Double, m12: Double, m13: Double,
        m21: Double, m22: Double, m23: Double,
        m31: Double, m32: Double, m33: Double
    ) {
        self.m11 = m11; self.m12 = m12; self.m13 = m13
        self.m21 = m21; self.m22 = m22; self.m23 = m23
        self.m31 = m31; self.m32 = m32; self.m33 = m33
    }

    public static let identity = RotationMatrix(m11: 1, m12: 0, m13: 0, m21: 0, m22: 1, m23: 0, m31: 0, m32: 0, m33: 1)

    /// The matrix of a unit quaternion.
    @inlinable
    public init(_ q: Quaternion) {
        let (w, x, y, z) = (q.w, q.x, q.y, q.z)
        self.init(
            m11: 1 - 2 * (y * y + z * z), m12: 2 * (x * y - w * z), m13: 2 * (x * z + w * y),
            m21: 2 * (x * y + w * z), m22: 1 - 2 * (x * x + z * z), m23: 2 * (y * z - w * x),
            m31: 2 * (x * z - w * y), m32: 2 * (y * z + w * x), m33: 1 - 2 * (x * x + y * y))
    }

    @inlinable
    public static func * (r: RotationMatrix, v: Vector3) -> Vector3 {
        Vector3(
            r.m11 * v.x + r.m12 * v.y + r.m13 * v.z,
            r.m21 * v.x + r.m22 * v.y + r.m23 * v.z,
            r.m31 * v.x + r.m32 * v.y + r.m33 * v.z)
    }

    @inlinable
    public var transposed: RotationMatrix {
        RotationMatrix(m11: m11, m12: m21, m13: m31, m21: m12, m22: m22, m23: m32, m31: m13, m32: m23, m33: m33)
    }

    /// The unit quaternion of this rotation matrix (Shepperd's method, numerically stable).
    @inlinable
    public var quaternion: Quaternion {
        let trace = m11 + m22 + m33
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            return Quaternion(w: s / 4, x: (m32 - m23) / s, y: (m13 - m31) / s, z: (m21 - m12) / s).normalized
        } else if m11 > m22 && m11 > m33 {
            let s = (1 + m11 - m22 - m33).squareRoot() * 2
            return Quaternion(w: (m32 - m23) / s, x: s / 4, y: (m12 + m21) / s, z: (m13 + m31) / s).normalized
        } else if m22 > m33 {
            let s = (1 + m22 - m11 - m33).squareRoot() * 2
            return Quaternion(w: (m13 - m31) / s, x: (m12 + m21) / s, y: s / 4, z: (m23 + m32) / s).normalized
        } else {
            let s = (1 + m33 - m11 - m22).squareRoot() * 2
            return Quaternion(w: (m21 - m12) / s, x: (m13 + m31) / s, y: (m23 + m32) / s, z: s / 4).normalized
        }
    }
}
