/// Kalman-style estimator of the gyroscope bias `b` (rad/s, sensor frame) with covariance `P`
/// (rad²/s²).
///
/// - Prediction: the bias is a slow random walk; `P` grows by `processNoise · dt` per step.
/// - Rest measurement (`H = I`): the averaged raw rotation rate *is* the bias.
/// - Motion measurement (`H` = rows of the low-passed sensor→earth rotation matrix): the
///   horizontal rate at which the accelerometer keeps correcting the inclination is the
///   horizontal part of the bias error, seen in the earth frame. The vertical earth component is
///   unobservable from the accelerometer; a very weak pseudo-measurement pulls it towards zero so
///   its uncertainty stays bounded.
///
/// The measurement variances are chosen from the desired steady-state uncertainties: for a
/// scalar filter with process noise `V` per step and measurement noise `W`, the posterior
/// variance settles at `p` when `W = p²/V + p`.
@frozen
public struct GyroBiasEstimator: Sendable, BitwiseCopyable {
    /// Bias estimate, rad/s, sensor frame.
    public private(set) var bias: Vector3 = .zero
    /// Covariance of `bias`, rad²/s².
    public private(set) var covariance: Matrix3
    /// Variance growth per second, rad²/s² per s.
    public var processNoiseRate: Double
    /// Measurement variance of a rest update, rad²/s².
    public var restVariance: Double
    /// Measurement variance of the horizontal motion updates, rad²/s².
    public var motionVariance: Double
    /// Measurement variance of the vertical pseudo-measurement, rad²/s².
    public var verticalVariance: Double
    /// Largest absolute bias per axis, rad/s.
    public var clip: Double

    /// - Parameters: angles as rad/s; see `RobustAttitudeFilterParameters` for their meaning.
    public init(sigmaInit: Double, forgettingTime: Double, sigmaMotion: Double, verticalForgettingFactor: Double,
                sigmaRest: Double, clip: Double, samplePeriod: Double) {
        let p0 = sigmaInit * sigmaInit
        covariance = .diagonal(p0, p0, p0)
        let growth = (0.1 * Double.pi / 180)
        processNoiseRate = growth * growth / forgettingTime
        let v = processNoiseRate * samplePeriod
        let pm = sigmaMotion * sigmaMotion
        motionVariance = pm * pm / v + pm
        verticalVariance = motionVariance / Swift.max(verticalForgettingFactor, 1e-10)
        let pr = sigmaRest * sigmaRest
        restVariance = pr * pr / v + pr
        self.clip = clip
    }

    /// One-sigma uncertainty: the square root of the largest variance on the diagonal, rad/s.
    public var sigma: Double {
        Swift.max(covariance.a11, Swift.max(covariance.a22, covariance.a33)).squareRoot()
    }

    /// Lets the uncertainty grow for `dt` seconds.
    public mutating func predict(dt: Double) {
        let v = processNoiseRate * dt
        covariance.a11 += v
        covariance.a22 += v
        covariance.a33 += v
    }

    /// Rest update from the averaged raw rotation rate (rad/s, sensor frame).
    public mutating func updateAtRest(meanRotationRate: Vector3) {
        let w = restVariance
        correct(h: .identity, innovation: meanRotationRate - bias, noise: .diagonal(w, w, w))
    }

    /// Motion update. `h` maps the sensor-frame bias into the (low-passed) earth frame;
    /// `measurement` holds the horizontal earth-frame bias implied by the inclination corrections
    /// in x and y (z is ignored and treated as 0).
    public mutating func updateInMotion(h: Matrix3, measurement: Vector3) {
        let hb = h * bias
        let e = Vector3(measurement.x - hb.x, measurement.y - hb.y, -hb.z)
        correct(h: h, innovation: e, noise: .diagonal(motionVariance, motionVariance, verticalVariance))
    }

    mutating func correct(h: Matrix3, innovation e: Vector3, noise w: Matrix3) {
        let p = covariance
        let pht = p * h.transposed
        guard let sInv = (h * pht + w).inverse else { return }
        let k = pht * sInv
        bias += k * e
        covariance = p - k * (h * p)
        bias = Vector3(Swift.max(-clip, Swift.min(clip, bias.x)),
                       Swift.max(-clip, Swift.min(clip, bias.y)),
                       Swift.max(-clip, Swift.min(clip, bias.z)))
    }

    /// Replaces the estimate (e.g. from a calibration) with the given uncertainty, rad/s.
    public mutating func reset(bias: Vector3, sigma: Double) {
        self.bias = bias
        covariance = .diagonal(sigma * sigma, sigma * sigma, sigma * sigma)
    }
}
