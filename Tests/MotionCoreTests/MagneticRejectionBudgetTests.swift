import Testing
@testable import MotionCore

/// What happens to a disturbed field once the rejection budget (`magMaxRejectionTime`) is spent:
/// VQF's published method uses it at `kMag / magRejectionFactor`; `magBudgetGainFactor` says how
/// much of the normal gain is used. A still, level device (it can never learn the disturbed field
/// as a new reference, which needs rotation) sees a field that is 30 % stronger and turned by 10°.
@Suite("Magnetic rejection budget")
struct MagneticRejectionBudgetTests {
    let dt = 0.01

    func field(heading phi: Double, scale: Double) -> Vector3 {
        Vector3(20 * phi.sin, 20 * phi.cos, -40) * scale
    }

    func heading(_ filter: RobustAttitudeFilter) -> Double {
        let north = filter.output.quaternion9D.conjugate.rotate(Vector3(0, 1, 0))
        return Double.atan2(north.x, north.y).degrees
    }

    /// Runs 40 s undisturbed at 40°, then the disturbed field at 50°; returns the heading at the
    /// end of the budget and `after` seconds later.
    func run(gainFactor: Double, after: Double) -> (atBudgetEnd: Double, later: Double) {
        var p = RobustAttitudeFilterParameters()
        p.magBudgetGainFactor = gainFactor
        var filter = RobustAttitudeFilter(samplePeriod: dt, parameters: p)
        let up = Vector3(0, 0, 9.81)
        for _ in 0..<4000 {
            filter.update(gyroscope: .zero, accelerometer: up, magnetometer: field(heading: 40.0.radians, scale: 1), dt: dt)
        }
        let budget = Int((p.magMaxRejectionTime / dt).rounded()) + 1
        for _ in 0..<budget {
            filter.update(gyroscope: .zero, accelerometer: up, magnetometer: field(heading: 50.0.radians, scale: 1.3), dt: dt)
        }
        let atEnd = heading(filter)
        for _ in 0..<Int((after / dt).rounded()) {
            filter.update(gyroscope: .zero, accelerometer: up, magnetometer: field(heading: 50.0.radians, scale: 1.3), dt: dt)
        }
        return (atEnd, heading(filter))
    }

    @Test func aDisturbedFieldIsIgnoredForTheWholeBudget() {
        let r = run(gainFactor: 0.5, after: 0)
        #expect(abs(r.atBudgetEnd - 40) < 0.01, "heading \(r.atBudgetEnd)° after 60 s of a disturbed field")
    }

    @Test(arguments: [1.0, 0.5])
    func afterTheBudgetTheFieldIsFollowedAtTheScaledGain(factor: Double) {
        // First-order follower with time constant tauMag / factor: covers 1 − exp(−t·factor/tauMag).
        let tauMag = RobustAttitudeFilterParameters().tauMag
        let r = run(gainFactor: factor, after: 10)
        let covered = (r.later - r.atBudgetEnd) / (50 - r.atBudgetEnd)
        let expected = 1 - (-10 * factor / tauMag).exp
        #expect(abs(covered - expected) < 0.01, "factor \(factor): covered \(covered), expected \(expected)")
    }
}
