/// How a sensor chip is mounted on the board: a proper rotation `R` that maps a reading in the
/// chip's axes to the board's axes, `v_board = R · v_chip`. Applied to raw readings before
/// calibration-independent fusion; a precomputed 3×3 multiply, no allocation, no locking.
///
/// Frames: IIO convention, a board at rest reads specific force +9.81 m/s² on its +z (up) axis,
/// which is gravity along −z in Core Motion terms.
public struct SensorMount: Sendable, Hashable, BitwiseCopyable {
    /// Chip-to-board rotation (orthonormal, determinant +1).
    public let matrix: Matrix3

    public static let identity = SensorMount(unchecked: .identity)

    init(unchecked m: Matrix3) { matrix = m }

    /// A mount from a 3×3 matrix; throws unless it is orthonormal with determinant +1
    /// (within `tolerance` per element of `Mᵀ·M − I` and on the determinant).
    public init(matrix m: Matrix3, tolerance: Double = 1e-6) throws(SensorMountError) {
        let d = m.transposed * m - .identity
        let worst = [d.a11, d.a12, d.a13, d.a21, d.a22, d.a23, d.a31, d.a32, d.a33].map { abs($0) }.max() ?? 0
        guard worst <= tolerance else { throw .notOrthonormal(deviation: worst) }
        let det = m.determinant
        guard abs(det - 1) <= tolerance else { throw .notProperRotation(determinant: det) }
        matrix = m
    }

    /// A mount from an axis remap: `board.x = remap.x` etc., each a signed chip axis such as
    /// `(.y, negated: true)` for `x: -y`. Must be a signed permutation with determinant +1.
    public init(remapX x: SignedAxis, y: SignedAxis, z: SignedAxis) throws(SensorMountError) {
        let rows = [x.row, y.row, z.row]
        let m = Matrix3(rows[0].x, rows[0].y, rows[0].z, rows[1].x, rows[1].y, rows[1].z,
                        rows[2].x, rows[2].y, rows[2].z)
        if Set([x.axis, y.axis, z.axis]).count != 3 { throw .repeatedAxis }
        try self.init(matrix: m)
    }

    /// The mount that turns a resting specific-force reading `f` (chip axes, any non-zero length)
    /// into +z of the board: the shortest rotation taking `f̂` to (0, 0, 1). Yaw about z is left
    /// as it is (a resting reading cannot observe it). Throws for a zero or non-finite reading.
    public static func learned(fromRestingSpecificForce f: Vector3) throws(SensorMountError) -> SensorMount {
        let n = f.norm
        guard n.isFinite, n > 1e-3 else { throw .noGravity }
        let a = f / n, b = Vector3(0, 0, 1)
        let c = a.dot(b)
        if c < -1 + 1e-12 {   // upside down: half turn about x
            return SensorMount(unchecked: Matrix3(1, 0, 0, 0, -1, 0, 0, 0, -1))
        }
        let v = a.cross(b)
        let k = 1 / (1 + c)
        // Rodrigues: R = I + [v]× + [v]×² / (1 + c)
        let m = Matrix3(
            1 - k * (v.y * v.y + v.z * v.z), -v.z + k * v.x * v.y, v.y + k * v.x * v.z,
            v.z + k * v.x * v.y, 1 - k * (v.x * v.x + v.z * v.z), -v.x + k * v.y * v.z,
            -v.y + k * v.x * v.z, v.x + k * v.y * v.z, 1 - k * (v.x * v.x + v.y * v.y))
        return SensorMount(unchecked: m)
    }

    /// A chip-axis reading in board axes.
    @inlinable
    public func apply(_ v: Vector3) -> Vector3 { matrix * v }
}

/// One signed chip axis of an axis remap (`-y` is `SignedAxis(.y, negated: true)`).
public struct SignedAxis: Sendable, Hashable {
    public enum Axis: Sendable, Hashable { case x, y, z }
    public let axis: Axis
    public let negated: Bool
    public init(_ axis: Axis, negated: Bool = false) { self.axis = axis; self.negated = negated }

    /// Parses `x`, `-y`, `+z`; nil for anything else.
    public init?(parsing s: String) {
        var t = Substring(s)
        var neg = false
        if t.first == "-" { neg = true; t = t.dropFirst() } else if t.first == "+" { t = t.dropFirst() }
        switch t {
        case "x": axis = .x
        case "y": axis = .y
        case "z": axis = .z
        default: return nil
        }
        negated = neg
    }

    var row: Vector3 {
        let s: Double = negated ? -1 : 1
        switch axis {
        case .x: return Vector3(s, 0, 0)
        case .y: return Vector3(0, s, 0)
        case .z: return Vector3(0, 0, s)
        }
    }
}

/// Why a mount is rejected; each case says what to fix.
public enum SensorMountError: Error, Sendable, Equatable, CustomStringConvertible {
    case notOrthonormal(deviation: Double)
    case notProperRotation(determinant: Double)
    case repeatedAxis
    case noGravity

    public var description: String {
        switch self {
        case .notOrthonormal(let d):
            return "mount matrix is not orthonormal (largest |MᵀM − I| element \(d)); give a rotation matrix"
        case .notProperRotation(let d):
            return "mount has determinant \(d), not +1: it is a reflection; flip the sign of one axis"
        case .repeatedAxis:
            return "mount remap uses a chip axis twice; each of x, y, z must appear once"
        case .noGravity:
            return "resting reading has no usable specific force; hold the board still and read again"
        }
    }
}
