#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Elementary functions spelled as members so the maths reads like the papers (`(a/2).sin`).
// MotionCore uses only the C maths library, never Foundation.
extension Double {
    @inlinable public var sin: Double { Glibc.sin(self) }
    @inlinable public var cos: Double { Glibc.cos(self) }
    @inlinable public var tan: Double { Glibc.tan(self) }
    @inlinable public var asin: Double { Glibc.asin(Swift.max(-1, Swift.min(1, self))) }
    @inlinable public var acos: Double { Glibc.acos(Swift.max(-1, Swift.min(1, self))) }
    @inlinable public var exp: Double { Glibc.exp(self) }
    @inlinable public var log: Double { Glibc.log(self) }
    @inlinable public static func atan2(_ y: Double, _ x: Double) -> Double { Glibc.atan2(y, x) }

    /// Degrees → radians.
    @inlinable public var radians: Double { self * .pi / 180 }
    /// Radians → degrees.
    @inlinable public var degrees: Double { self * 180 / .pi }
}

/// Wraps an angle in radians into (−π, π].
@inlinable
public func wrapAngle(_ a: Double) -> Double {
    var r = a
    while r > .pi { r -= 2 * .pi }
    while r <= -.pi { r += 2 * .pi }
    return r
}
