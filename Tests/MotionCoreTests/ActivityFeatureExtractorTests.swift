import Testing
@testable import MotionCore

@Suite("ActivityFeatureExtractor")
struct ActivityFeatureExtractorTests {
    /// Features of one full window whose |f| is `9.81 + wave(i)` along a tilted gravity direction.
    static func features(_ wave: (Int) -> Double) -> ActivityFeatures {
        let extractor = ActivityFeatureExtractor(rate: 25, windowLength: 128)
        let up = Vector3(0.3, -0.5, 0.81).normalized
        for i in 0..<128 { extractor.append(specificForce: up * (9.81 + wave(i)), rotationRate: nil) }
        return extractor.compute()
    }

    /// Kurtosis of |f| from its definition, E[(x − μ)⁴] / E[(x − μ)²]²: 1.5 for a sinusoid (exact over
    /// whole periods: (3/8) A⁴ / (A²/2)²), and for a train of one-sample peaks every k samples (a
    /// two-valued variable with p = 1/k) it is 1 / (p (1 − p)) − 3 = k² / (k − 1) − 3 — 14.07 for
    /// k = 16 — far above the 2.6 that marks impacts.
    @Test func kurtosisOfASinusoidAndOfAnImpactTrain() {
        let sine = Self.features { i in 2 * (2 * Double.pi * Double(i) * 8 / 128).sin }  // 8 whole periods
        #expect(abs(sine.magnitudeKurtosis - 1.5) < 1e-6, "sinusoid: \(sine.magnitudeKurtosis)")
        let impacts = Self.features { i in i % 16 == 0 ? 5 : 0 }
        let k = 16.0
        #expect(abs(impacts.magnitudeKurtosis - (k * k / (k - 1) - 3)) < 1e-6, "impacts: \(impacts.magnitudeKurtosis)")
        let still = Self.features { _ in 0 }
        #expect(still.magnitudeKurtosis == 0, "a constant |f| has no kurtosis: \(still.magnitudeKurtosis)")
    }
}
