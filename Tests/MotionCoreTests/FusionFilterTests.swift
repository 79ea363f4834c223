import Testing
@testable import MotionCore

@Suite("RobustAttitudeFilter on synthetic signals")
struct FusionFilterTests {
    let dt = 0.01

    @Test func staticTiltFromLevelStartConvergesWithinOneDegreeInFiveSeconds() {
        let tilt = Quaternion.aboutX(30.0.radians) * Quaternion.aboutY(-20.0.radians)
        var signals = FusionTestSignals(truth: tilt)
        var filter = RobustAttitudeFilter(samplePeriod: dt)
        for _ in 0..<500 {
            let s = signals.step(omegaEarth: .zero, dt: dt)
            filter.update(gyroscope: s.gyro, accelerometer: s.acc, magnetometer: nil, dt: dt)
        }
        let error = AttitudeError(estimate: filter.output.quaternion6D, truth: signals.truth)
        #expect(error.inclination < 1, "inclination error \(error.inclination)° after 5 s")
    }

    @Test func tiltTheGyroscopeMissedIsCorrectedByTheAccelerometer() {
        var signals = FusionTestSignals()
        var filter = RobustAttitudeFilter(samplePeriod: dt)
        for _ in 0..<500 {
            let s = signals.step(omegaEarth: .zero, dt: dt)
            filter.update(gyroscope: s.gyro, accelerometer: s.acc, magnetometer: nil, dt: dt)
        }
        // The device is tipped by 10° without any gyroscope signal (e.g. a saturated gyro).
        signals.truth = Quaternion.aboutX(10.0.radians) * signals.truth
        var afterOne = 0.0
        for k in 0..<1500 {
            let s = signals.step(omegaEarth: .zero, dt: dt)
            filter.update(gyroscope: s.gyro, accelerometer: s.acc, magnetometer: nil, dt: dt)
            if k == 99 { afterOne = AttitudeError(estimate: filter.output.quaternion6D, truth: signals.truth).inclination }
        }
        let error = AttitudeError(estimate: filter.output.quaternion6D, truth: signals.truth)
        #expect(afterOne > 5, "the low-pass must not follow a 1 s disturbance at once (error \(afterOne)°)")
        #expect(error.inclination < 1, "inclination error \(error.inclination)° 15 s after the step")
    }

    @Test func constantGyroBiasIsEstimatedWithinFiveHundredthsOfADegreePerSecondAtRest() {
        var signals = FusionTestSignals(truth: Quaternion.aboutY(15.0.radians))
        signals.gyroBias = Vector3(0.5, -0.5, 0.5) * Double.pi / 180
        var filter = RobustAttitudeFilter(samplePeriod: dt)
        for _ in 0..<6000 {
            let s = signals.step(omegaEarth: .zero, dt: dt)
            filter.update(gyroscope: s.gyro, accelerometer: s.acc, magnetometer: s.mag, dt: dt)
        }
        let out = filter.output
        #expect(out.restDetected)
        let error = (out.gyroBias - signals.gyroBias).norm.degrees
        #expect(error < 0.05, "bias error \(error) °/s, estimate \(out.gyroBias * (180 / Double.pi)) °/s")
        #expect(out.gyroBiasSigma.degrees < 0.05)
    }

    @Test func rotationIsTrackedAndRestIsNotDetectedWhileMoving() {
        var signals = FusionTestSignals(truth: Quaternion.aboutX(10.0.radians))
        var filter = RobustAttitudeFilter(samplePeriod: dt)
        var worst = 0.0
        var restWhileMoving = false
        for k in 0..<6000 {
            let t = Double(k) * dt
            let omega = Vector3(0.3 * (0.7 * t).sin, 0.4 * (0.5 * t).cos, 1.0 * (0.3 * t).sin)
            let s = signals.step(omegaEarth: omega, dt: dt)
            filter.update(gyroscope: s.gyro, accelerometer: s.acc, magnetometer: s.mag, dt: dt)
            if k > 1000 {
                let e = AttitudeError(estimate: filter.output.quaternion9D, truth: signals.truth)
                worst = max(worst, e.total)
                restWhileMoving = restWhileMoving || filter.output.restDetected
            }
        }
        #expect(worst < 2, "worst 9D error \(worst)°")
        #expect(!restWhileMoving)
    }

    @Test func gyroBiasIsLearnedWhileMovingWithoutAnyRest() {
        var signals = FusionTestSignals(truth: Quaternion.aboutX(10.0.radians))
        signals.gyroBias = Vector3(0.4, -0.3, 0.3) * Double.pi / 180
        var filter = RobustAttitudeFilter(samplePeriod: dt)
        for k in 0..<18000 {
            let t = Double(k) * dt
            let omega = Vector3(0.5 * (0.7 * t).sin, 0.6 * (0.5 * t).cos, 1.0 * (0.3 * t).sin)
            let s = signals.step(omegaEarth: omega, dt: dt)
            filter.update(gyroscope: s.gyro, accelerometer: s.acc, magnetometer: nil, dt: dt)
            #expect(!filter.output.restDetected)
        }
        let error = (filter.output.gyroBias - signals.gyroBias).norm.degrees
        #expect(error < 0.1, "bias error \(error) °/s after 3 min of motion")
    }

    @Test func twentySecondMagneticDisturbanceLeavesHeadingWithinFiveDegreesAndInclinationUntouched() {
        var signals = FusionTestSignals(truth: Quaternion.aboutX(10.0.radians))
        var filter = RobustAttitudeFilter(samplePeriod: dt)
        var sixD = RobustAttitudeFilter(samplePeriod: dt)
        var worstHeading = 0.0
        var worstInclinationDifference = 0.0
        var flagged = false
        for k in 0..<9000 {
            let t = Double(k) * dt
            // 40 s undisturbed, a 25 µT field step for 20 s, then 30 s undisturbed; yawing back and forth.
            signals.magneticDisturbance = (t >= 40 && t < 60) ? Vector3(25, -10, 15) : .zero
            let s = signals.step(omegaEarth: Vector3(0, 0, 0.6 * (0.8 * t).sin), dt: dt)
            filter.update(gyroscope: s.gyro, accelerometer: s.acc, magnetometer: s.mag, dt: dt)
            sixD.update(gyroscope: s.gyro, accelerometer: s.acc, magnetometer: nil, dt: dt)
            if t >= 30 {
                let e = AttitudeError(estimate: filter.output.quaternion9D, truth: signals.truth)
                let e6 = AttitudeError(estimate: sixD.output.quaternion6D, truth: signals.truth)
                worstHeading = max(worstHeading, e.heading)
                worstInclinationDifference = max(worstInclinationDifference, abs(e.inclination - e6.inclination))
            }
            if t > 41 && t < 59 { flagged = flagged || filter.output.magneticDisturbance }
        }
        #expect(flagged, "the disturbance must be detected")
        #expect(worstHeading < 5, "worst heading error \(worstHeading)°")
        #expect(worstInclinationDifference < 1e-6, "the magnetometer changed the inclination by \(worstInclinationDifference)°")
    }

    @Test func withoutRejectionTheSameDisturbanceDragsTheHeadingAway() {
        // Guards the test above: the disturbance is large enough to matter.
        var p = RobustAttitudeFilterParameters()
        p.magneticDisturbanceRejection = false
        var signals = FusionTestSignals(truth: Quaternion.aboutX(10.0.radians))
        var filter = RobustAttitudeFilter(samplePeriod: dt, parameters: p)
        var worstHeading = 0.0
        for k in 0..<6000 {
            let t = Double(k) * dt
            signals.magneticDisturbance = (t >= 40 && t < 60) ? Vector3(25, -10, 15) : .zero
            let s = signals.step(omegaEarth: Vector3(0, 0, 0.6 * (0.8 * t).sin), dt: dt)
            filter.update(gyroscope: s.gyro, accelerometer: s.acc, magnetometer: s.mag, dt: dt)
            if t >= 30 { worstHeading = max(worstHeading, AttitudeError(estimate: filter.output.quaternion9D, truth: signals.truth).heading) }
        }
        #expect(worstHeading > 10, "worst heading error without rejection \(worstHeading)°")
    }

    @Test func lastingFieldChangeIsRelearnedAsTheNewReference() {
        var signals = FusionTestSignals(truth: Quaternion.aboutX(5.0.radians))
        var filter = RobustAttitudeFilter(samplePeriod: dt)
        for k in 0..<12000 {
            let t = Double(k) * dt
            // From 20 s on the earth field itself is 20 % stronger (e.g. the device moved to another room).
            if t >= 20 { signals.earthField = Vector3(0, 17, -47) * 1.2 }
            let s = signals.step(omegaEarth: Vector3(0.2 * (0.9 * t).sin, 0, 0.8 * (0.4 * t).sin), dt: dt)
            filter.update(gyroscope: s.gyro, accelerometer: s.acc, magnetometer: s.mag, dt: dt)
        }
        #expect(!filter.output.magneticDisturbance, "a lasting, consistent field must become the reference")
        let expected = (Vector3(0, 17, -47) * 1.2).norm
        #expect(abs(filter.magneticDetector.referenceNorm - expected) < 0.05 * expected)
    }
}
