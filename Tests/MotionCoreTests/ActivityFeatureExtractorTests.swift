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

    /// Yaw share of one window at rest under gravity along `up` while the device rotates at `rate(i)`.
    static func yawShare(up: Vector3, _ rate: (Int) -> Vector3) -> (share: Double, rms: Double) {
        let extractor = ActivityFeatureExtractor(rate: 25, windowLength: 128)
        for i in 0..<128 { extractor.append(specificForce: up * 9.81, rotationRate: rate(i)) }
        let f = extractor.compute()
        return (f.gyroYawShare, f.gyroTotalRMS)
    }

    /// From the definition Σ (ω·ĝ)² / Σ |ω|², written out for three rotations and two ways of
    /// holding the device: a turn about gravity (yaw) is 1, a rock about an axis perpendicular to
    /// gravity (pitch or roll) is 0, and the same 0.5 rad/s rotation about all three axes in turn (no
    /// preferred axis) is 1/3 exactly, since one of three orthogonal axes along ĝ carries (ω·ĝ)² =
    /// ω² · cos² and the cosines' squares of ĝ against the three axes sum to 1.
    @Test func yawShareIsTheRotationAboutGravityWhateverTheHold() {
        for up in [Vector3(0, 0, 1), Vector3(0.3, -0.5, 0.81).normalized] {
            // A horizontal axis: perpendicular to up.
            let side = up.cross(Vector3(1, 0, 0)).normalized
            let turn = Self.yawShare(up: up) { i in up * (0.4 + 0.2 * (2 * Double.pi * Double(i) / 64).sin) }
            #expect(abs(turn.share - 1) < 1e-9, "turn: \(turn.share)")
            let rock = Self.yawShare(up: up) { i in side * 0.6 * (2 * Double.pi * Double(i) / 50).sin }
            #expect(abs(rock.share) < 1e-9, "rock: \(rock.share)")
            let axes = [Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)]
            let tumble = Self.yawShare(up: up) { i in axes[i % 3] * 0.5 }
            // 128 samples: axes x, y, z get 43, 43, 42 samples; the exact share is Σ nₖ gₖ² / 128.
            let exact = (43 * up.x * up.x + 43 * up.y * up.y + 42 * up.z * up.z) / 128
            #expect(abs(tumble.share - exact) < 1e-9 && abs(exact - 1.0 / 3) < 0.01, "tumble: \(tumble.share)")
            #expect(abs(tumble.rms - 0.5) < 1e-9, "rms of the rotation as measured: \(tumble.rms)")
        }
    }
}
