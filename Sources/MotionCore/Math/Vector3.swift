/// A 3-vector of `Double`, the common currency of the maths layer.
///
/// Units and frame are given by whoever holds it; the typed wrappers (`Acceleration`,
/// `RotationRate`, `MagneticField`) say which.
@frozen
public struct Vector3: Hashable, Sendable, BitwiseCopyable {
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    @inlinable
    public init(_ x: Double, _ y: Double, _ z: Double) {
        self.init(x: x, y: y, z: z)
    }

    public static let zero = Vector3(0, 0, 0)

    /// Squared Euclidean norm.
    @inlinable public var normSquared: Double { x * x + y * y + z * z }
    /// Euclidean norm.
    @inlinable public var norm: Double { normSquared.squareRoot() }

    /// The unit vector in the same direction, or `.zero` for the zero vector.
    @inlinable
    public var normalized: Vector3 {
        let n = norm
        return n > 0 ? self / n : .zero
    }

    @inlinable
    public func dot(_ other: Vector3) -> Double { x * other.x + y * other.y + z * other.z }

    @inlinable
    public func cross(_ other: Vector3) -> Vector3 {
        Vector3(y * other.z - z * other.y, z * other.x - x * other.z, x * other.y - y * other.x)
    }

    @inlinable public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
    @inlinable public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    @inlinable public static prefix func - (a: Vector3) -> Vector3 { Vector3(-a.x, -a.y, -a.z) }
    @inlinable public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    @inlinable public static func * (s: Double, a: Vector3) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    @inlinable public static func / (a: Vector3, s: Double) -> Vector3 { Vector3(a.x / s, a.y / s, a.z / s) }
    @inlinable public static func += (a: inout Vector3, b: Vector3) { a = a + b }
    @inlinable public static func -= (a: inout Vector3, b: Vector3) { a = a - b }
    @inlinable public static func *= (a: inout Vector3, s: Double) { a = a * s }

    /// Component-wise product.
    @inlinable
    public func scaled(by s: Vector3) -> Vector3 { Vector3(x * s.x, y * s.y, z * s.z) }
}
