import Testing
@testable import MotionCore

@Suite("DeviceMotionEstimator reference frames and outputs")
struct FusionDeviceMotionTests {
    let dt = 0.01

    /// Runs 40 s of slow yawing with a fixed tilt and returns the last device motion and the truth.
    func run(frame: AttitudeReferenceFrame, declination: Double? = nil, calibration: SensorCalibration = .none,
             disturbance: Vector3 = .zero) -> (DeviceMotion, Quaternion, DeviceMotionEstimator<DefaultAttitudeFilter>) {
        var signals = FusionTestSignals(truth: Quaternion.aboutZ(1.0) * Quaternion.aboutX(0.15))
        var estimator = DeviceMotionEstimator<DefaultAttitudeFilter>(samplePeriod: dt, referenceFrame: frame,
                                                                     declination: declination, calibration: calibration)
        var last: DeviceMotion?
        for k in 0..<4000 {
            if k >= 3800 { signals.magneticDisturbance = disturbance }
            let s = signals.step(omegaEarth: Vector3(0, 0, 0.3 * (Double(k) * dt * 0.4).sin), dt: dt)
            let sample = IMUSample(timestampNanos: UInt64(k + 1) * 10_000_000, sequence: UInt64(k),
                                   specificForce: s.acc, rotationRate: s.gyro, magneticField: s.mag, contents: .all)
            last = estimator.update(sample)
        }
        return (last!, signals.truth, estimator)
    }

    func angleDifference(_ a: Double, _ b: Double) -> Double {
        var d = (a - b).truncatingRemainder(dividingBy: 360)
        if d > 180 { d -= 360 }
        if d < -180 { d += 360 }
        return abs(d)
    }

    @Test func magneticNorthHeadingAndAttitudeMatchTruth() {
        let (m, truth, _) = run(frame: .xMagneticNorthZVertical)
        #expect(m.referenceFrame == .xMagneticNorthZVertical)
        let expected = DeviceMotionEstimator<DefaultAttitudeFilter>.heading(truth)
        #expect(angleDifference(m.heading, expected) < 1, "heading \(m.heading)° vs \(expected)°")
        // Truth in north-west-up from the frames' definitions: NWU's x is ENU's y (north), so
        // every NWU azimuth is the ENU one less 90°: a −90° turn about z applied to the ENU truth.
        let nwuTruth = Quaternion.aboutZ(-Double.pi / 2) * truth
        #expect(AttitudeError(estimate: m.attitude.quaternion, truth: nwuTruth).total < 1)
    }

    @Test func trueNorthHeadingAddsTheDeclination() {
        let declination = 10.0
        let (m, truth, estimator) = run(frame: .xTrueNorthZVertical, declination: declination.radians)
        #expect(m.referenceFrame == .xTrueNorthZVertical)
        #expect(estimator.trueNorthAvailable)
        let magnetic = DeviceMotionEstimator<DefaultAttitudeFilter>.heading(truth)
        #expect(angleDifference(m.heading, magnetic + declination) < 1, "heading \(m.heading)° vs \(magnetic + declination)°")
    }

    @Test func trueNorthWithoutLocationFallsBackToMagneticNorth() {
        let (m, truth, estimator) = run(frame: .xTrueNorthZVertical)
        #expect(!estimator.trueNorthAvailable)
        #expect(m.referenceFrame == .xMagneticNorthZVertical)
        #expect(angleDifference(m.heading, DeviceMotionEstimator<DefaultAttitudeFilter>.heading(truth)) < 1)
    }

    @Test func arbitraryFramesHaveNoHeadingAndStayVertical() {
        for frame in [AttitudeReferenceFrame.xArbitraryZVertical, .xArbitraryCorrectedZVertical] {
            let (m, truth, _) = run(frame: frame)
            #expect(m.heading == -1)
            #expect(AttitudeError(estimate: m.attitude.quaternion, truth: truth).inclination < 0.5)
        }
    }

    @Test func magneticAccuracyFollowsCalibrationAndDisturbance() {
        let (plain, _, _) = run(frame: .xMagneticNorthZVertical)
        #expect(plain.magneticField.accuracy == .medium)
        let calibrated = SensorCalibration(magnetometerOffset: .zero, magnetometerSoftIron: .identity)
        let (good, _, _) = run(frame: .xMagneticNorthZVertical, calibration: calibrated)
        #expect(good.magneticField.accuracy == .high)
        let (disturbed, _, _) = run(frame: .xMagneticNorthZVertical, calibration: calibrated, disturbance: Vector3(30, 0, 20))
        #expect(disturbed.magneticField.accuracy == .low)
        #expect(disturbed.magneticDisturbance)
    }

    @Test func calibrationIsAppliedBeforeFusion() {
        // A 40 µT hard-iron offset ruins the heading unless the stored calibration removes it.
        var signals = FusionTestSignals(truth: Quaternion.aboutZ(1.0))
        let offset = Vector3(25, -30, 10)
        var raw = DeviceMotionEstimator<DefaultAttitudeFilter>(samplePeriod: dt, referenceFrame: .xMagneticNorthZVertical)
        var fixed = DeviceMotionEstimator<DefaultAttitudeFilter>(
            samplePeriod: dt, referenceFrame: .xMagneticNorthZVertical,
            calibration: SensorCalibration(magnetometerOffset: offset, magnetometerSoftIron: .identity))
        var a: DeviceMotion?, b: DeviceMotion?
        for k in 0..<3000 {
            let s = signals.step(omegaEarth: Vector3(0, 0, 0.5 * (Double(k) * dt * 0.5).sin), dt: dt)
            let sample = IMUSample(timestampNanos: UInt64(k + 1) * 10_000_000, sequence: UInt64(k),
                                   specificForce: s.acc, rotationRate: s.gyro, magneticField: s.mag + offset, contents: .all)
            a = raw.update(sample)
            b = fixed.update(sample)
        }
        let expected = DeviceMotionEstimator<DefaultAttitudeFilter>.heading(signals.truth)
        #expect(angleDifference(b!.heading, expected) < 1)
        #expect(angleDifference(a!.heading, expected) > 5)
    }

    @Test func declinationFromTheWorldMagneticModel() {
        // WMM2025 test point: 2025.0, 0 km, 80° N, 0° E → declination 1.28°.
        let d = MagneticDeclination.radians(latitude: 80, longitude: 0, decimalYear: 2025.0).degrees
        #expect(abs(d - 1.28) < 0.1)
    }
}
