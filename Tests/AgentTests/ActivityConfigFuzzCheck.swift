// Compiled into AgentTests (FuzzCorpusTests' `activity-config` replayer) and into the libFuzzer
// `activity-config` target (scripts/fuzz lists this file; there ActivityConfigFile and JSONValue
// are in the same module, compiled instrumented, and MotionCore is linked).
import MotionCore
#if !EDGEMOTION_FUZZ
@testable import Agent
#endif

/// What must hold for any file given to `edgemotion classify --config` (`ActivityConfigFile`):
/// one copy for the fuzzer and its corpus replayer. Each check is a `precondition` (a crash is
/// what the fuzzer reports).
enum ActivityConfigFuzzCheck {
    /// 50 Hz, 20 s: still for 8 s (gravity on z, a little noise), then a walk-like rhythm (1.8 Hz
    /// vertical bounce of 3 m/s², a 0.9 Hz sway, 1 rad/s of rotation): enough for every accepted
    /// window length (up to 4096 at 200 Hz is 20 s) to reach decisions with real features.
    static let signal: [(t: Double, f: Vector3, w: Vector3)] = {
        var out: [(t: Double, f: Vector3, w: Vector3)] = []
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func noise() -> Double {   // a fixed LCG: the same signal on every run
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53) - 0.5
        }
        for i in 0..<1000 {
            let t = Double(i) / 50
            if t < 8 {
                out.append((t, Vector3(0.02 * noise(), 0.02 * noise(), 9.81 + 0.02 * noise()), Vector3(0.002 * noise(), 0, 0)))
            } else {
                let bounce = 3 * (2 * Double.pi * 1.8 * t).sin, sway = 1.2 * (2 * Double.pi * 0.9 * t).sin
                out.append((t, Vector3(sway + 0.1 * noise(), 0.3 * noise(), 9.81 + bounce),
                            Vector3((2 * Double.pi * 0.9 * t).cos, 0.2 * noise(), 0.3 * (2 * Double.pi * 1.8 * t).sin)))
            }
        }
        return out
    }()

    static func check(_ bytes: [UInt8]) {
        var configuration = ActivityConfiguration()
        var model = ActivityModel.fitted, lowRateModel = ActivityModel.fittedLowRate
        do throws(ActivityConfigFile.LoadError) {
            try ActivityConfigFile.parse(bytes, path: "fuzz.json", into: &configuration, model: &model, lowRateModel: &lowRateModel)
        } catch {
            precondition(error.description.hasPrefix("fuzz.json: "), "an error that does not name the file: \(error)")
            return
        }
        // What loads passed every validation and runs: every decision is a probability
        // distribution, with gyroscope and without, with either model.
        precondition(configuration.validationError() == nil && model.validationError() == nil && lowRateModel.validationError() == nil)
        // At 50 Hz (the main model) and every fifth sample, 10 Hz (the low-rate model).
        for (gyro, step) in [(true, 1), (false, 1), (true, 5)] {
            let detector = ActivityDetector(configuration: configuration, model: model, lowRateModel: lowRateModel)
            var decisions = 0
            for s in stride(from: 0, to: signal.count, by: step).map({ signal[$0] }) {
                _ = detector.update(time: s.t, specificForce: s.f, rotationRate: gyro ? s.w : nil)
                guard detector.decisionCount != decisions else { continue }
                decisions = detector.decisionCount
                let p = detector.lastDecision.probabilities
                let values = ActivityClass.allCases.map { p[$0] }
                precondition(values.allSatisfy { $0.isFinite && $0 >= 0 }, "a decision's probabilities are not finite: \(values)")
                let sum = values.reduce(0, +)
                precondition(abs(sum - 1) < 1e-6, "a decision's probabilities add up to \(sum)")
            }
        }
    }
}
