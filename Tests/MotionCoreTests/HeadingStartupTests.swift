import Testing
@testable import MotionCore

/// The heading start-up of `RobustAttitudeFilter`, from its definition (doc comment and
/// docs/fusion.md): the heading gain runs 1, 1/2, 1/3 … so that the heading after N readings is
/// the mean of the first N readings, until 1/N falls below the steady gain
/// `kMag = 1 − exp(−dt/tauMag)`; from then on the heading follows the field with time constant
/// `tauMag`.
///
/// The device lies still and level (gyro zero, specific force straight up), so each magnetometer
/// reading whose horizontal part lies φ clockwise from the sensor's y axis says by itself that
/// the device's heading offset is φ: the 9D attitude must turn the direction (sin φ, cos φ, 0)
/// onto north (0, 1, 0) of ENU.
@Suite("RobustAttitudeFilter heading start-up")
struct HeadingStartupTests {
    let dt = 0.01
    let tauMag = RobustAttitudeFilterParameters().tauMag

    /// A level, still device's magnetometer reading (µT) with the horizontal field φ (rad)
    /// clockwise from the sensor's y axis; dip about −63° like central Europe.
    func field(heading phi: Double) -> Vector3 { Vector3(20 * phi.sin, 20 * phi.cos, -40) }

    /// The heading offset (degrees) the filter's 9D attitude implies: the angle, clockwise from
    /// the sensor's y axis, of the direction it maps onto north.
    func estimatedHeading(_ filter: RobustAttitudeFilter) -> Double {
        let north = filter.output.quaternion9D.conjugate.rotate(Vector3(0, 1, 0))
        return Double.atan2(north.x, north.y).degrees
    }

    /// Readings that scatter around 40° (as noise would): 40° + 6°·sin(0.7·i).
    func reading(_ i: Int) -> Double { (40 + 6 * (0.7 * Double(i)).sin).radians }

    @Test func headingDuringStartUpIsTheMeanOfAllReadingsSoFar() {
        var filter = RobustAttitudeFilter(samplePeriod: dt)
        var sum = 0.0
        // tauMag / dt readings make up the start-up; check inside it.
        let checkpoints: Set<Int> = [1, 2, 3, 10, 100, 500, 1000]
        for i in 1...1000 {
            let phi = reading(i)
            sum += phi
            filter.update(gyroscope: .zero, accelerometer: Vector3(0, 0, 9.81),
                          magnetometer: field(heading: phi), dt: dt)
            if checkpoints.contains(i) {
                let mean = (sum / Double(i)).degrees
                #expect(abs(estimatedHeading(filter) - mean) < 1e-6,
                        "after \(i) readings: heading \(estimatedHeading(filter))°, mean of the readings \(mean)°")
            }
        }
    }

    @Test func afterStartUpTheHeadingFollowsAStepWithTimeConstantTauMag() {
        var filter = RobustAttitudeFilter(samplePeriod: dt)
        // Two start-up lengths of a steady field at 40°: the start-up is over.
        let still = Int((2 * tauMag / dt).rounded())
        for _ in 0..<still {
            filter.update(gyroscope: .zero, accelerometer: Vector3(0, 0, 9.81),
                          magnetometer: field(heading: 40.0.radians), dt: dt)
        }
        #expect(abs(estimatedHeading(filter) - 40) < 1e-6)
        // The field turns to 44° (within the disturbance thresholds: norm and dip are unchanged).
        // A first-order follower with time constant tauMag covers 1 − 1/e of the step in tauMag.
        let steps = Int((tauMag / dt).rounded())
        for _ in 0..<steps {
            filter.update(gyroscope: .zero, accelerometer: Vector3(0, 0, 9.81),
                          magnetometer: field(heading: 44.0.radians), dt: dt)
        }
        let covered = (estimatedHeading(filter) - 40) / 4
        #expect(abs(covered - (1 - (-1.0).exp)) < 0.01, "covered \(covered) of the step in tauMag")
    }
}
