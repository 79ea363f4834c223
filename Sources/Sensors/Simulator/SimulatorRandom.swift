#if canImport(Glibc)
import Glibc
#endif
import MotionCore

/// The simulator's deterministic random numbers: xoshiro256** seeded through SplitMix64, with
/// Box–Muller normals. No Foundation, no system entropy: the same seed gives the same stream on
/// every machine and every run.
///
/// S. Vigna, D. Blackman, "Scrambled linear pseudorandom number generators", ACM TOMS 2021.
struct SimulatorRandom: Sendable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64
    /// The second normal of the last Box–Muller pair, waiting to be used.
    private var spareNormal: Double?

    init(seed: UInt64) {
        var sm = seed
        s0 = Self.splitMix64(&sm)
        s1 = Self.splitMix64(&sm)
        s2 = Self.splitMix64(&sm)
        s3 = Self.splitMix64(&sm)
        spareNormal = nil
    }

    /// SplitMix64 (Steele, Lea, Flood 2014): turns any seed, even 0, into a well-mixed state.
    static func splitMix64(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    @inline(__always)
    private static func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    /// The next 64 random bits (xoshiro256**).
    mutating func next() -> UInt64 {
        let result = Self.rotl(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = Self.rotl(s3, 45)
        return result
    }

    /// Uniform in [0, 1) with 53 random bits.
    mutating func uniform() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// Uniform in [a, b).
    mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * uniform() }

    /// A standard normal deviate (mean 0, variance 1), Box–Muller.
    mutating func normal() -> Double {
        if let s = spareNormal {
            spareNormal = nil
            return s
        }
        // 1 − U is in (0, 1], so the logarithm is finite.
        let u1 = 1 - uniform()
        let u2 = uniform()
        let r = (-2 * u1.log).squareRoot()
        let a = 2 * Double.pi * u2
        spareNormal = r * a.sin
        return r * a.cos
    }

    /// A vector of independent normals with standard deviation `sigma` on each axis.
    mutating func normalVector(sigma: Double) -> Vector3 {
        Vector3(normal() * sigma, normal() * sigma, normal() * sigma)
    }
}
