/// A general 3×3 matrix of `Double`, row-major, for the small Kalman updates of the fusion
/// filters (gyro-bias covariance, measurement matrices). Stored inline: no allocation.
@frozen
public struct Matrix3: Hashable, Sendable, BitwiseCopyable {
    public var a11: Double, a12: Double, a13: Double
    public var a21: Double, a22: Double, a23: Double
    public var a31: Double, a32: Double, a33: Double

    @inlinable
    public init(
        _ a11: Double, _ a12: Double, _ a13: Double,
        _ a21: Double, _ a22: Double, _ a23: Double,
        _ a31: Double, _ a32: Double, _ a33: Double
    ) {
        self.a11 = a11; self.a12 = a12; self.a13 = a13
        self.a21 = a21; self.a22 = a22; self.a23 = a23
        self.a31 = a31; self.a32 = a32; self.a33 = a33
    }

    public static let zero = Matrix3(0, 0, 0, 0, 0, 0, 0, 0, 0)
    public static let identity = Matrix3(1, 0, 0, 0, 1, 0, 0, 0, 1)

    /// `s · I`.
    @inlinable public static func diagonal(_ d1: Double, _ d2: Double, _ d3: Double) -> Matrix3 {
        Matrix3(d1, 0, 0, 0, d2, 0, 0, 0, d3)
    }

    /// The rotation matrix of a unit quaternion (sensor → earth when `q` is).
    @inlinable
    public init(rotation q: Quaternion) {
        let (w, x, y, z) = (q.w, q.x, q.y, q.z)
        self.init(
            1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
            2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
            2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))
    }

    @inlinable public var row1: Vector3 { Vector3(a11, a12, a13) }
    @inlinable public var row2: Vector3 { Vector3(a21, a22, a23) }
    @inlinable public var row3: Vector3 { Vector3(a31, a32, a33) }

    @inlinable
    public var transposed: Matrix3 { Matrix3(a11, a21, a31, a12, a22, a32, a13, a23, a33) }

    @inlinable
    public var trace: Double { a11 + a22 + a33 }

    @inlinable
    public var determinant: Double {
        a11 * (a22 * a33 - a23 * a32) - a12 * (a21 * a33 - a23 * a31) + a13 * (a21 * a32 - a22 * a31)
    }

    /// The inverse by cofactors; `nil` when singular.
    @inlinable
    public var inverse: Matrix3? {
        let c11 = a22 * a33 - a23 * a32, c12 = a23 * a31 - a21 * a33, c13 = a21 * a32 - a22 * a31
        let det = a11 * c11 + a12 * c12 + a13 * c13
        guard det != 0, det.isFinite else { return nil }
        let r = 1 / det
        return Matrix3(
            c11 * r, (a13 * a32 - a12 * a33) * r, (a12 * a23 - a13 * a22) * r,
            c12 * r, (a11 * a33 - a13 * a31) * r, (a13 * a21 - a11 * a23) * r,
            c13 * r, (a12 * a31 - a11 * a32) * r, (a11 * a22 - a12 * a21) * r)
    }

    @inlinable
    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(
            a.a11 * b.a11 + a.a12 * b.a21 + a.a13 * b.a31, a.a11 * b.a12 + a.a12 * b.a22 + a.a13 * b.a32, a.a11 * b.a13 + a.a12 * b.a23 + a.a13 * b.a33,
            a.a21 * b.a11 + a.a22 * b.a21 + a.a23 * b.a31, a.a21 * b.a12 + a.a22 * b.a22 + a.a23 * b.a32, a.a21 * b.a13 + a.a22 * b.a23 + a.a23 * b.a33,
            a.a31 * b.a11 + a.a32 * b.a21 + a.a33 * b.a31, a.a31 * b.a12 + a.a32 * b.a22 + a.a33 * b.a32, a.a31 * b.a13 + a.a32 * b.a23 + a.a33 * b.a33)
    }

    @inlinable
    public static func * (a: Matrix3, v: Vector3) -> Vector3 {
        Vector3(a.a11 * v.x + a.a12 * v.y + a.a13 * v.z,
                a.a21 * v.x + a.a22 * v.y + a.a23 * v.z,
                a.a31 * v.x + a.a32 * v.y + a.a33 * v.z)
    }

    @inlinable
    public static func + (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(a.a11 + b.a11, a.a12 + b.a12, a.a13 + b.a13,
                a.a21 + b.a21, a.a22 + b.a22, a.a23 + b.a23,
                a.a31 + b.a31, a.a32 + b.a32, a.a33 + b.a33)
    }

    @inlinable
    public static func - (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(a.a11 - b.a11, a.a12 - b.a12, a.a13 - b.a13,
                a.a21 - b.a21, a.a22 - b.a22, a.a23 - b.a23,
                a.a31 - b.a31, a.a32 - b.a32, a.a33 - b.a33)
    }

    @inlinable
    public static func * (s: Double, a: Matrix3) -> Matrix3 {
        Matrix3(s * a.a11, s * a.a12, s * a.a13, s * a.a21, s * a.a22, s * a.a23, s * a.a31, s * a.a32, s * a.a33)
    }
}
