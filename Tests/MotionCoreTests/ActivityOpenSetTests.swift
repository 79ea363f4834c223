import Testing
@testable import MotionCore

/// The open-set rule (`ActivityConfiguration.unknownBelowProbability`): motion the model cannot
/// place in any class it knows is reported as `unknown`, and calm windows never are.
///
/// The truth comes from a hand-built model, not from the fitted one: every weight and bias 0 over
/// five classes gives each class probability exactly 1/5 = 0.2 whatever the features (softmax of
/// equal logits), so the most probable class has 0.2 < 0.4, and the rule must fire on every
/// window that moves (|f| std ≥ `minimumGaitStd`).
@Suite("Activity open set (unknown)")
struct ActivityOpenSetTests {
    static let undecided = ActivityModel(
        classes: [.stationary, .walking, .running, .cycling, .automotive],
        mean: Array(repeating: 0, count: ActivityFeatures.modelFeatureCount),
        scale: Array(repeating: 1, count: ActivityFeatures.modelFeatureCount),
        weights: Array(repeating: Array(repeating: 0, count: ActivityFeatures.modelFeatureCount + 1), count: 5))

    @Test func theHandBuiltModelIsUndecided() {
        let p = Self.undecided.probabilities(ActivityFeatures())
        for c in [ActivityClass.stationary, .walking, .running, .cycling, .automotive] {
            #expect(abs(p[c] - 0.2) < 1e-12)
        }
    }

    @Test func motionNoClassFitsIsUnknown() {
        let detector = ActivityDetector(model: Self.undecided)
        // Energetic motion (|f| std ≈ 2 m/s², far above the 0.25 m/s² calm floor).
        _ = ActivityDetectorTests.run([(.gait(cadence: 1.8, amplitude: 3.5), 40)], detector: detector)
        #expect(detector.currentActivity?.unknown == true, "\(String(describing: detector.currentActivity))")
        #expect(detector.lastDecision.probabilities.unknown == 1)
    }

    @Test func withTheRuleOffTheSameMotionIsNeverUnknown() {
        var c = ActivityConfiguration()
        c.unknownBelowProbability = 0
        let detector = ActivityDetector(configuration: c, model: Self.undecided)
        let events = ActivityDetectorTests.run([(.gait(cadence: 1.8, amplitude: 3.5), 40)], detector: detector)
        #expect(!events.contains { $0.unknown })
        #expect(detector.lastDecision.probabilities.unknown == 0)
    }

    @Test func aCalmWindowIsNeverUnknown() {
        // |f| std ≈ 0.02 m/s²: below minimumGaitStd, so the rule does not apply and the calm-window
        // rule gives stationary the walking, running and unknown shares (0.2 + 0.2 + 0.2 + 0 = 0.6).
        let detector = ActivityDetector(model: Self.undecided)
        _ = ActivityDetectorTests.run([(.stationary(noise: 0.02), 30)], detector: detector)
        #expect(detector.currentActivity?.stationary == true)
        #expect(abs(detector.lastDecision.probabilities.stationary - 0.6) < 1e-9)
        #expect(detector.lastDecision.probabilities.unknown == 0)
    }
}
