/// Coefficients of a second-order Butterworth low-pass filter, discretised with the bilinear
/// transform (cut-off pre-warped), for a time constant `tau` in s and a sample period `dt` in s.
///
/// The cut-off frequency is `fc = √2 / (2π·tau)` Hz, so that `tau` reads like the time constant
/// of a first-order filter with a comparable step response.
@frozen
public struct ButterworthCoefficients: Sendable, BitwiseCopyable {
    public var b0: Double, b1: Double, b2: Double
    public var a1: Double, a2: Double
    /// The sample period these coefficients were made for, s.
    public var samplePeriod: Double

    public init(tau: Double, samplePeriod dt: Double) {
        samplePeriod = dt
        let fc = 2.0.squareRoot() / (2 * .pi * tau)
        let k = (Double.pi * fc * dt).tan
        let root2 = 2.0.squareRoot()
        let n = 1 / (1 + root2 * k + k * k)
        b0 = k * k * n
        b1 = 2 * b0
        b2 = b0
        a1 = 2 * (k * k - 1) * n
        a2 = (1 - root2 * k + k * k) * n
    }
}

/// A second-order Butterworth low-pass on a `Vector3` (any unit, any frame), direct form II
/// transposed.
///
/// Start-up without a transient: for the first `tau` seconds the output is the running mean of
/// the inputs, and the filter state is then set to the steady state of that mean.
@frozen
public struct VectorLowPass: Sendable, BitwiseCopyable {
    public var tau: Double
    public private(set) var coefficients: ButterworthCoefficients
    public private(set) var output: Vector3 = .zero
    var s1: Vector3 = .zero
    var s2: Vector3 = .zero
    var warmupTime = 0.0
    var warmupSum: Vector3 = .zero
    var warmupCount = 0.0
    var warm = false

    public init(tau: Double, samplePeriod: Double) {
        self.tau = tau
        coefficients = ButterworthCoefficients(tau: tau, samplePeriod: samplePeriod)
    }

    /// Feeds `x` sampled `dt` s after the previous input; returns the filtered value.
    public mutating func update(_ x: Vector3, dt: Double) -> Vector3 {
        if !warm {
            warmupSum += x
            warmupCount += 1
            warmupTime += dt
            output = warmupSum / warmupCount
            if warmupTime >= tau {
                warm = true
                let c = coefficients
                s1 = output * (1 - c.b0)
                s2 = output * (c.b2 - c.a2)
            }
            return output
        }
        // Retune only when the period changes noticeably (jittery sources).
        let p = coefficients.samplePeriod
        if abs(dt - p) > 0.02 * p { coefficients = ButterworthCoefficients(tau: tau, samplePeriod: dt) }
        let c = coefficients
        let y = c.b0 * x + s1
        s1 = c.b1 * x - c.a1 * y + s2
        s2 = c.b2 * x - c.a2 * y
        output = y
        return y
    }

    /// Whether the start-up averaging is over and the filter runs as a Butterworth low-pass.
    public var isWarm: Bool { warm }

    /// Forgets all history.
    public mutating func reset() {
        output = .zero; s1 = .zero; s2 = .zero
        warmupTime = 0; warmupSum = .zero; warmupCount = 0; warm = false
    }
}

/// The same second-order Butterworth low-pass on a `Matrix3`, element-wise.
@frozen
public struct MatrixLowPass: Sendable, BitwiseCopyable {
    var r1: VectorLowPass
    var r2: VectorLowPass
    var r3: VectorLowPass

    public init(tau: Double, samplePeriod: Double) {
        r1 = VectorLowPass(tau: tau, samplePeriod: samplePeriod)
        r2 = r1
        r3 = r1
    }

    public mutating func update(_ m: Matrix3, dt: Double) -> Matrix3 {
        let a = r1.update(m.row1, dt: dt), b = r2.update(m.row2, dt: dt), c = r3.update(m.row3, dt: dt)
        return Matrix3(a.x, a.y, a.z, b.x, b.y, b.z, c.x, c.y, c.z)
    }

    public mutating func reset() { r1.reset(); r2.reset(); r3.reset() }
}

/// Gain of a first-order low-pass (exponential smoothing) with time constant `tau` s at step
/// `dt` s: `y += k·(x − y)`. Zero `tau` means no smoothing.
@inlinable
public func firstOrderGain(tau: Double, dt: Double) -> Double {
    tau > 0 ? 1 - (-dt / tau).exp : 1
}
