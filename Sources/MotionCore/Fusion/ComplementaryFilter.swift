/// A Mahony-class complementary filter: gyro integration with a proportional-integral
/// correction towards the accelerometer's "up", plus a separately corrected heading offset.
///
/// R. Mahony, T. Hamel, J.-M. Pflimlin, "Nonlinear Complementary Filters on the Special
/// Orthogonal Group", IEEE TAC 53(5), 2008 — the explicit complementary filter with bias, with
/// the magnetometer handled as a heading-only correction so it can never tilt the estimate.
///
/// State: `q6` (sensor → earth, z up, arbitrary heading), gyro bias `b`, heading offset `δ`
/// with `q9 = Rz(δ) ⊗ q6`.
public struct ComplementaryFilter: AttitudeFilter {
    // MARK: Parameters
    /// Proportional gain of the inclination correction, rad/s per unit error.
    public var proportionalGain = 0.5
    /// Integral gain of the bias estimate, rad/s² per unit error.
    public var integralGain = 0.01
    /// Time constant of the heading correction, s.
    public var headingTimeConstant = 5.0
    /// Accelerometer readings whose norm differs from g by more than this fraction are ignored.
    public var accelerationRejection = 0.15
    /// Largest bias the integral may learn, rad/s.
    public var biasClip = 2.0.radians

    // MARK: State
    private var q6 = Quaternion.identity
    private var bias = Vector3.zero
    private var delta = 0.0
    private var initialised = false
    private var headingInitialised = false

    public init(samplePeriod: Double) {}

    public mutating func update(gyroscope: Vector3, accelerometer: Vector3, magnetometer: Vector3?, dt: Double) {
        let accNorm = accelerometer.norm
        if !initialised {
            guard accNorm > 0 else { return }
            q6 = Self.tilt(from: accelerometer)
            initialised = true
        }
        var omega = gyroscope - bias
        if accNorm > 0, abs(accNorm - standardGravity) < accelerationRejection * standardGravity {
            let measuredUp = accelerometer / accNorm
            let estimatedUp = q6.inverseRotate(Vector3(0, 0, 1))
            let error = measuredUp.cross(estimatedUp)
            omega += proportionalGain * error
            bias -= integralGain * dt * error
            bias = Vector3(clip(bias.x), clip(bias.y), clip(bias.z))
        }
        q6 = (q6 * Quaternion(rotationVector: omega * dt)).normalized

        if let m = magnetometer, m.normSquared > 0 {
            let e = q6.rotate(m)
            if e.x * e.x + e.y * e.y > 0 {
                let target = Double.atan2(e.x, e.y)
                if !headingInitialised {
                    delta = target
                    headingInitialised = true
                } else {
                    let k = min(1, dt / headingTimeConstant)
                    delta = wrapAngle(delta + k * wrapAngle(target - delta))
                }
            }
        }
    }

    public var output: FusionOutput {
        FusionOutput(
            quaternion6D: q6,
            quaternion9D: headingInitialised ? (Quaternion.aboutZ(delta) * q6).normalized : q6,
            gyroBias: bias, gyroBiasSigma: 0, restDetected: false,
            magneticDisturbance: false, headingAvailable: headingInitialised)
    }

    private func clip(_ v: Double) -> Double { max(-biasClip, min(biasClip, v)) }

    /// The attitude with zero heading whose "up" matches a specific-force reading.
    static func tilt(from accelerometer: Vector3) -> Quaternion {
        let up = accelerometer.normalized
        // Shortest rotation taking sensor-frame `up` onto earth z.
        let z = Vector3(0, 0, 1)
        let c = up.dot(z)
        if c < -0.999999 { return Quaternion(w: 0, x: 1, y: 0, z: 0) }
        let axis = up.cross(z)
        return Quaternion(w: 1 + c, x: axis.x, y: axis.y, z: axis.z).normalized
    }
}

