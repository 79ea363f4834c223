import Foundation

/// A seeded generator (SplitMix64, Steele, Lea & Flood 2014) for tests that draw random inputs:
/// a failure reproduces from the seed, which every such test puts in its failure messages.
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64
    public init(state: UInt64) { self.state = state }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seed of a test: `EDGEMOTION_TEST_SEED` (decimal) when set, to replay a failure or try
    /// other inputs, else the test's fixed `default`.
    public static func seed(default value: UInt64) -> UInt64 {
        UInt64(ProcessInfo.processInfo.environment["EDGEMOTION_TEST_SEED"] ?? "") ?? value
    }
}
