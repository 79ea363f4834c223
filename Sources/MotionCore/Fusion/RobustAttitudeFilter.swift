/// EdgeMotion's default attitude filter: gyroscope strapdown integration with inclination
/// corrected from low-passed accelerometer data and heading corrected separately from the
/// magnetometer, with gyro-bias estimation, rest detection and magnetic-disturbance rejection.
///
/// Ideas from D. Laidig and T. Seel, "VQF: Highly Accurate IMU Orientation Estimation with Bias
/// Estimation and Magnetic Disturbance Rejection", Information Fusion 91, 2023. Our own Swift
/// code, written from the paper's description, but not from the paper alone: some details match
/// the authors' reference implementation (the `vqf` package's C++ and `pyvqf.py`, and its
/// documentation) rather than anything the paper states — the `1e-6` guard on the inclination
/// correction and its fallback (a 180° turn about x), the `1e-10` floor on the vertical bias
/// forgetting factor, and the low-passes' start-up (the mean of the first `tau` seconds, then
/// the filter state set to the steady state of that mean). The same holds, as far as we know, for
/// the iterative 1, 1/2, 1/3 … heading start-up gain. Where we depart from the reference, and what
/// the measurements on held-out trials say about each departure, is in docs/fusion.md.
///
/// - Three frames. `qI` rotates sensor → *I*, an almost-inertial frame obtained by pure strapdown
///   integration of the bias-corrected gyroscope. `qA` rotates I → *E6* (z up, arbitrary
///   heading) and only ever tilts. `q6 = qA ⊗ qI`; `q9 = Rz(δ) ⊗ q6` with a scalar heading
///   offset δ towards magnetic north (ENU). 6D and 9D come from one state, and the magnetometer
///   can never touch the inclination.
/// - Inclination: the accelerometer is rotated into I, where gravity is nearly constant and a
///   bounded motion's acceleration averages out, low-passed there (second-order Butterworth,
///   `tauAcc`), and `qA` is corrected so that this low-passed vector is exactly vertical.
/// - Bias: see `GyroBiasEstimator` (rest and motion updates) and `RestDetector`.
/// - Heading: δ follows the horizontal direction of the field in E6 with time constant
///   `tauMag`, gated by `MagneticDisturbanceDetector`.
///
/// Value type; `update` does no allocation, locking or logging.
public struct RobustAttitudeFilter: AttitudeFilter {
    public private(set) var parameters: RobustAttitudeFilterParameters

    // MARK: State
    /// Sensor → almost-inertial frame I (gyro only).
    public private(set) var gyroQuaternion = Quaternion.identity
    /// I → E6 (inclination correction, no heading).
    public private(set) var inclinationQuaternion = Quaternion.identity
    /// Heading offset E6 → ENU (magnetic north), rad.
    public private(set) var headingOffset = 0.0
    public private(set) var headingAvailable = false
    public private(set) var biasEstimator: GyroBiasEstimator
    public private(set) var restDetector: RestDetector
    public private(set) var magneticDetector: MagneticDisturbanceDetector
    /// Low-passed accelerometer in I, m/s².
    var accelerationLowPass: VectorLowPass
    /// Low-passed rotation matrix and earth-frame bias for the motion bias update.
    var rotationLowPass: MatrixLowPass
    var earthBiasLowPass: VectorLowPass
    /// Gain used for the first magnetometer samples (1, 1/2, 1/3 … until below the steady gain
    /// `kMag = 1 − exp(−dt/tauMag)`): the heading starts as the mean of the first `tauMag`
    /// seconds of readings. 0 once the start-up is over.
    var headingInitGain = 1.0
    let samplePeriod: Double

    public init(samplePeriod: Double) {
        self.init(samplePeriod: samplePeriod, parameters: RobustAttitudeFilterParameters())
    }

    public init(samplePeriod: Double, parameters p: RobustAttitudeFilterParameters) {
        parameters = p
        self.samplePeriod = samplePeriod
        let deg = Double.pi / 180
        biasEstimator = GyroBiasEstimator(
            sigmaInit: p.biasSigmaInit * deg, forgettingTime: p.biasForgettingTime,
            sigmaMotion: p.biasSigmaMotion * deg, verticalForgettingFactor: p.biasVerticalForgettingFactor,
            sigmaRest: p.biasSigmaRest * deg, clip: p.biasClip * deg, samplePeriod: samplePeriod)
        restDetector = RestDetector(
            tau: p.restFilterTau, thresholdGyro: p.restThresholdGyro * deg, thresholdAcc: p.restThresholdAcc,
            maxMeanGyro: p.biasClip * deg, minTime: p.restMinTime, samplePeriod: samplePeriod)
        magneticDetector = MagneticDisturbanceDetector(parameters: p, samplePeriod: samplePeriod)
        accelerationLowPass = VectorLowPass(tau: p.tauAcc, samplePeriod: samplePeriod)
        rotationLowPass = MatrixLowPass(tau: p.tauAcc, samplePeriod: samplePeriod)
        earthBiasLowPass = VectorLowPass(tau: p.tauAcc, samplePeriod: samplePeriod)
    }

    /// Sensor → E6 (z up, arbitrary heading).
    public var quaternion6D: Quaternion { inclinationQuaternion * gyroQuaternion }

    /// Sensor → ENU, heading towards magnetic north.
    public var quaternion9D: Quaternion { Quaternion.aboutZ(headingOffset) * quaternion6D }

    public mutating func update(gyroscope: Vector3, accelerometer: Vector3, magnetometer: Vector3?, dt: Double) {
        guard dt > 0 else { return }
        let p = parameters

        // Rest detection on raw readings.
        restDetector.update(gyroscope: gyroscope, accelerometer: accelerometer, dt: dt)

        // Strapdown integration of the bias-corrected rate.
        let omega = gyroscope - biasEstimator.bias
        gyroQuaternion = (gyroQuaternion * Quaternion(rotationVector: omega * dt)).normalized

        // Inclination: low-pass the accelerometer in I, make it vertical in E6.
        var correctionRate = Vector3.zero
        if accelerometer.normSquared > 0 {
            let accI = gyroQuaternion.rotate(accelerometer)
            let lowPassed = accelerationLowPass.update(accI, dt: dt)
            let up = inclinationQuaternion.rotate(lowPassed).normalized
            // Shortest rotation taking `up` onto +z: axis (up.y, −up.x, 0).
            let cw = ((1 + up.z) / 2).squareRoot()
            let correction: Quaternion
            if cw > 1e-6 {
                correction = Quaternion(w: cw, x: up.y / (2 * cw), y: -up.x / (2 * cw), z: 0)
            } else {
                correction = Quaternion(w: 0, x: 1, y: 0, z: 0)
            }
            inclinationQuaternion = (correction * inclinationQuaternion).normalized
            // Earth-frame rotation rate the correction applied (small-angle), rad/s.
            correctionRate = Vector3(up.y / dt, -up.x / dt, 0)
        }
        let q6 = quaternion6D

        // Gyroscope bias.
        if p.motionBiasEstimation || p.restBiasEstimation {
            let r = Matrix3(rotation: q6)
            let rLow = rotationLowPass.update(r, dt: dt)
            let rbLow = earthBiasLowPass.update(r * biasEstimator.bias, dt: dt)
            biasEstimator.predict(dt: dt)
            if restDetector.isAtRest {
                if p.restBiasEstimation {
                    biasEstimator.updateAtRest(meanRotationRate: restDetector.gyroscopeMean)
                }
            } else if p.motionBiasEstimation, accelerationLowPass.isWarm {
                // (Not during the start-up averaging: its corrections are the initial alignment,
                // not a bias.)
                // The corrections undo the effect of the bias error: LP(R)·b ≈ LP(R·b̂) − correction.
                let measured = Vector3(rbLow.x - correctionRate.x, rbLow.y - correctionRate.y, 0)
                biasEstimator.updateInMotion(h: rLow, measurement: measured)
            }
        }

        // Heading from the magnetometer.
        guard let m = magnetometer else { return }
        let norm = m.norm
        guard norm > 0 else { return }
        let mE = q6.rotate(m)
        let dip = (mE.z / norm).asin
        let rate = p.magGateLowPassedGyro ? restDetector.gyroscopeMean.norm : gyroscope.norm
        let factor = magneticDetector.update(fieldNorm: norm, fieldDip: dip, rotationRate: rate, dt: dt)
        guard factor > 0, mE.x * mE.x + mE.y * mE.y > 0 else { return }
        let target = Double.atan2(mE.x, mE.y)
        let kMag = firstOrderGain(tau: p.tauMag, dt: dt)
        var k = factor * kMag
        if headingInitGain > 0 {
            // Start-up: 1, 1/2, 1/3 … (the running mean of the first headings) until 1/N falls
            // below the steady gain `kMag` (compared with `kMag` itself, not with `k` after
            // raising it).
            if headingInitGain > k { k = headingInitGain }
            headingInitGain = headingInitGain / (headingInitGain + 1)
            if headingInitGain < kMag { headingInitGain = 0 }
        }
        headingOffset = wrapAngle(headingOffset + k * wrapAngle(target - headingOffset))
        headingAvailable = true
    }

    public var output: FusionOutput {
        let q6 = quaternion6D
        return FusionOutput(
            quaternion6D: q6,
            quaternion9D: headingAvailable ? (Quaternion.aboutZ(headingOffset) * q6).normalized : q6,
            gyroBias: biasEstimator.bias, gyroBiasSigma: biasEstimator.sigma,
            restDetected: restDetector.isAtRest,
            magneticDisturbance: magneticDetector.isDisturbed, headingAvailable: headingAvailable)
    }

    /// Sets the bias estimate, e.g. from a stored calibration; `sigma` its uncertainty, rad/s.
    public mutating func setGyroBias(_ bias: Vector3, sigma: Double) {
        biasEstimator.reset(bias: bias, sigma: sigma)
    }
}

extension RobustAttitudeFilter {
    /// Freezes (or resumes) online gyro-bias learning, at rest and in motion; the bias learned so
    /// far keeps being applied.
    public mutating func setGyroBiasLearning(_ enabled: Bool) {
        parameters.motionBiasEstimation = enabled
        parameters.restBiasEstimation = enabled
    }
}
