import Testing
import MotionCore
@testable import Sensors

/// The simulator's frames match what the fusion layer (and BROAD's ground truth) expect: a
/// filter fed simulated samples converges to the simulator's truth in ENU with y = magnetic north.
@Suite("SimulatedIMU with fusion")
struct SimulatedIMUFusionTests {
    @Test func aComplementaryFilterConvergesToTheTruthAtRest() throws {
        let tilt = Attitude(roll: 20.0.radians, pitch: -10.0.radians, yaw: 130.0.radians)
        let rate = 100.0
        let (imu, samples) = try simulatedSamples(SimulatorOptions(scenario: .stationary(attitude: tilt)), rate: rate, seconds: 30)
        var filter = ComplementaryFilter(samplePeriod: 1 / rate)
        for s in samples {
            filter.update(gyroscope: s.rotationRate, accelerometer: s.specificForce, magnetometer: s.magneticField, dt: 1 / rate)
        }
        let truth = imu.truth(at: 30).attitude
        let error = angleBetween(filter.output.quaternion9D, truth)
        #expect(error < 2, "9D estimate is \(error)° from the truth")
    }
}
