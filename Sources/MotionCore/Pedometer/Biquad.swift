/// A second-order IIR section (RBJ audio-EQ-cookbook Butterworth low/high-pass), direct form I.
/// Value type, no allocation.
public struct Biquad: Sendable, Hashable {
    private var b0 = 1.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
    private var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

    /// Low-pass at `cutoff` Hz for samples at `rate` Hz (Q = 1/√2 unless given: cascading
    /// sections with `butterworthQ(order:)` makes a higher-order Butterworth filter).
    public static func lowPass(cutoff: Double, rate: Double, q: Double = 0.5.squareRoot()) -> Biquad {
        let w = 2 * Double.pi * cutoff / rate
        let alpha = w.sin / (2 * q)
        let c = w.cos
        let a0 = 1 + alpha
        var f = Biquad()
        f.b0 = (1 - c) / 2 / a0
        f.b1 = (1 - c) / a0
        f.b2 = (1 - c) / 2 / a0
        f.a1 = -2 * c / a0
        f.a2 = (1 - alpha) / a0
        return f
    }

    /// High-pass at `cutoff` Hz for samples at `rate` Hz (Q = 1/√2 unless given).
    public static func highPass(cutoff: Double, rate: Double, q: Double = 0.5.squareRoot()) -> Biquad {
        let w = 2 * Double.pi * cutoff / rate
        let alpha = w.sin / (2 * q)
        let c = w.cos
        let a0 = 1 + alpha
        var f = Biquad()
        f.b0 = (1 + c) / 2 / a0
        f.b1 = -(1 + c) / a0
        f.b2 = (1 + c) / 2 / a0
        f.a1 = -2 * c / a0
        f.a2 = (1 - alpha) / a0
        return f
    }

    /// The Q of the two sections of a fourth-order Butterworth filter: 1/(2 cos(π/8)) and
    /// 1/(2 cos(3π/8)).
    public static let fourthOrderButterworthQ = (0.541196100146197, 1.3065629648763766)

    /// Filters one sample.
    public mutating func callAsFunction(_ x: Double) -> Double {
        let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2 = x1; x1 = x
        y2 = y1; y1 = y
        return y
    }

    /// Sets the state as if `x` had been applied forever (no start-up transient for a DC input).
    public mutating func prime(_ x: Double) {
        let gain = (b0 + b1 + b2) / (1 + a1 + a2)
        x1 = x; x2 = x
        y1 = x * gain; y2 = y1
    }
}
