/// Decides whether the sensor is at rest: the gyroscope and accelerometer must both stay close
/// to their own low-pass values, and the averaged rotation rate must be small enough to be a
/// bias, continuously for `minTime` seconds.
///
/// While at rest, `gyroscopeMean` (rad/s, sensor frame) is the low-passed raw rotation rate: a
/// direct measurement of the gyroscope bias.
@frozen
public struct RestDetector: Sendable, BitwiseCopyable {
    /// Thresholds, SI: rad/s, m/s², s.
    public var thresholdGyro: Double
    public var thresholdAcc: Double
    public var maxMeanGyro: Double
    public var minTime: Double

    public private(set) var isAtRest = false
    /// How long the rest conditions have held, s.
    public private(set) var stillTime = 0.0
    var gyroLowPass: VectorLowPass
    var accLowPass: VectorLowPass

    public init(tau: Double, thresholdGyro: Double, thresholdAcc: Double, maxMeanGyro: Double,
                minTime: Double, samplePeriod: Double) {
        self.thresholdGyro = thresholdGyro
        self.thresholdAcc = thresholdAcc
        self.maxMeanGyro = maxMeanGyro
        self.minTime = minTime
        gyroLowPass = VectorLowPass(tau: tau, samplePeriod: samplePeriod)
        accLowPass = VectorLowPass(tau: tau, samplePeriod: samplePeriod)
    }

    /// Low-passed raw rotation rate, rad/s, sensor frame.
    public var gyroscopeMean: Vector3 { gyroLowPass.output }

    /// Feeds raw gyroscope (rad/s) and accelerometer (m/s²) readings, sensor frame.
    public mutating func update(gyroscope: Vector3, accelerometer: Vector3, dt: Double) {
        let g = gyroLowPass.update(gyroscope, dt: dt)
        let a = accLowPass.update(accelerometer, dt: dt)
        let still = (gyroscope - g).normSquared < thresholdGyro * thresholdGyro
            && (accelerometer - a).normSquared < thresholdAcc * thresholdAcc
            && g.normSquared < maxMeanGyro * maxMeanGyro
        if still {
            stillTime += dt
            if stillTime >= minTime { isAtRest = true }
        } else {
            stillTime = 0
            isAtRest = false
        }
    }
}
