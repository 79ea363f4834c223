import Testing
@testable import MotionCore

/// `fusion.gyro_bias_learning`: the default filter learns a constant gyro bias at rest, and does
/// not when learning is frozen.
@Suite("Gyro-bias learning switch")
struct GyroBiasLearningSwitchTests {
    func learnedBias(learning: Bool) -> Double {
        let rate = 200.0
        var estimator = DeviceMotionEstimator<RobustAttitudeFilter>(samplePeriod: 1 / rate, referenceFrame: .xArbitraryZVertical,
                                                                     learnsGyroBias: learning)
        let bias = Vector3(0.5.radians, -0.3.radians, 0.2.radians)
        for i in 0..<Int(60 * rate) {
            let s = IMUSample(timestampNanos: 1_000_000_000 + UInt64(Double(i) / rate * 1e9), sequence: UInt64(i),
                              specificForce: Vector3(0, 0, standardGravity), rotationRate: bias,
                              contents: .inertial)
            estimator.ingest(s)
        }
        return (estimator.filter.output.gyroBias - bias).norm.degrees
    }

    @Test func aBiasIsLearnedAtRestByDefault() {
        #expect(learnedBias(learning: true) < 0.05)
    }

    @Test func aFrozenFilterKeepsItsBias() {
        // Nothing learned: the error stays the whole bias (√(0.5² + 0.3² + 0.2²) ≈ 0.62 °/s).
        #expect(abs(learnedBias(learning: false) - 0.616) < 0.01)
    }
}
