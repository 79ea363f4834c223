import MotionCore

// Smooth scalar profiles with closed-form integrals, so scripted motions are analytic functions
// of time (exact truth at any instant, and a gyroscope consistent with the attitude).

/// A `sin²` pulse: 0 before `start`, `peak · sin²(π (t − start)/duration)` during, 0 after.
/// Its integral over the whole pulse is `peak · duration / 2`.
struct SinePulse: Sendable, Hashable {
    var start: Double
    var duration: Double
    var peak: Double

    func value(at t: Double) -> Double {
        let u = (t - start) / duration
        guard u > 0, u < 1 else { return 0 }
        let s = (Double.pi * u).sin
        return peak * s * s
    }

    /// `∫ value` from −∞ to `t`.
    func integral(at t: Double) -> Double {
        let u = Swift.min(1, Swift.max(0, (t - start) / duration))
        return peak * duration * (u / 2 - (2 * Double.pi * u).sin / (4 * Double.pi))
    }

    /// The total integral, `peak · duration / 2`.
    var area: Double { peak * duration / 2 }
}

/// A periodic on/off gate with cosine ramps: 0 for `still` seconds, ramps up over `ramp`,
/// 1 until `ramp` before the end of the period, ramps down. Integrating it gives a "motion time"
/// that stands still during the still phase, so a motion `f(τ(t))` has exactly zero angular
/// velocity there.
struct MotionGate: Sendable, Hashable {
    var period: Double
    var still: Double
    var ramp: Double

    /// Seconds of motion time accumulated per period (each ramp counts half).
    var motionPerPeriod: Double { period - still - ramp }

    /// The integral of the gate from 0 to `t` (the motion time τ).
    func motionTime(at t: Double) -> Double {
        guard t > 0 else { return 0 }
        let cycles = (t / period).rounded(.down)
        let u = t - cycles * period
        return cycles * motionPerPeriod + withinPeriod(u)
    }

    private func withinPeriod(_ u: Double) -> Double {
        // [0, still): 0; [still, still+ramp): ramp up; [.., period−ramp): 1; [period−ramp, period): ramp down.
        let upStart = still
        let downStart = period - ramp
        if u <= upStart { return 0 }
        if u < upStart + ramp {
            let x = u - upStart
            return x / 2 - ramp / (2 * Double.pi) * (Double.pi * x / ramp).sin
        }
        let afterUp = ramp / 2
        if u < downStart { return afterUp + (u - upStart - ramp) }
        let full = afterUp + (downStart - upStart - ramp)
        let x = u - downStart
        return full + x / 2 + ramp / (2 * Double.pi) * (Double.pi * x / ramp).sin
    }
}

/// A slowly meandering heading `ψ(t) = ψ₀ + amplitude · sin(2π t / period)`, radians,
/// counter-clockwise from north (the walker's forward axis points along
/// `(−sin ψ, cos ψ, 0)` in ENU).
struct MeanderingHeading: Sendable, Hashable {
    var initial: Double
    var amplitude: Double
    var period: Double

    func heading(at t: Double) -> Double { initial + amplitude * (2 * Double.pi * t / period).sin }
    func rate(at t: Double) -> Double {
        amplitude * 2 * Double.pi / period * (2 * Double.pi * t / period).cos
    }
}

enum HeadingFrame {
    /// Unit forward vector in ENU for heading `psi`.
    @inline(__always)
    static func forward(_ psi: Double) -> Vector3 { Vector3(-psi.sin, psi.cos, 0) }
    /// Unit rightward vector in ENU for heading `psi`.
    @inline(__always)
    static func right(_ psi: Double) -> Vector3 { Vector3(psi.cos, psi.sin, 0) }
}

/// C² smooth step from 0 (x ≤ 0) to 1 (x ≥ 1): `6x⁵ − 15x⁴ + 10x³`.
@inline(__always)
func smootherStep(_ x: Double) -> Double {
    let u = Swift.min(1, Swift.max(0, x))
    return u * u * u * (u * (u * 6 - 15) + 10)
}

extension Quaternion {
    /// Spherical linear interpolation from `a` (s = 0) to `b` (s = 1) along the shorter arc.
    static func slerp(_ a: Quaternion, _ b: Quaternion, _ s: Double) -> Quaternion {
        var bb = b
        var d = a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z
        if d < 0 {
            bb = Quaternion(w: -b.w, x: -b.x, y: -b.y, z: -b.z)
            d = -d
        }
        if d > 0.9995 {
            return Quaternion(w: a.w + s * (bb.w - a.w), x: a.x + s * (bb.x - a.x),
                              y: a.y + s * (bb.y - a.y), z: a.z + s * (bb.z - a.z)).normalized
        }
        let theta = d.acos
        let sinTheta = theta.sin
        let wa = ((1 - s) * theta).sin / sinTheta
        let wb = (s * theta).sin / sinTheta
        return Quaternion(w: wa * a.w + wb * bb.w, x: wa * a.x + wb * bb.x,
                          y: wa * a.y + wb * bb.y, z: wa * a.z + wb * bb.z)
    }

    /// The rotation vector (axis × angle, radians) of this unit quaternion, angle in [0, π].
    var rotationVector: Vector3 {
        var q = self
        if q.w < 0 { q = Quaternion(w: -q.w, x: -q.x, y: -q.y, z: -q.z) }
        let v = q.vector
        let s = v.norm
        guard s > 1e-300 else { return .zero }
        let angle = 2 * Double.atan2(s, q.w)
        return v * (angle / s)
    }
}
