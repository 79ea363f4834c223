/// Tunable parameters of `RobustAttitudeFilter`. The defaults are the one parameter set used for
/// every recording (chosen on the BROAD development trials with two-fold cross-validation, see
/// docs/fusion-cv.md and docs/accuracy.md); angles in
/// degrees and rates in °/s where the name says so, times in s.
public struct RobustAttitudeFilterParameters: Sendable, Hashable {
    // MARK: Inclination
    /// Time constant of the low-pass applied to the accelerometer in the almost-inertial frame, s.
    /// Longer rejects sustained accelerations better; shorter follows gyro errors faster.
    public var tauAcc = 3.0

    // MARK: Heading
    /// Time constant of the magnetometer heading correction, s.
    /// 20 s: on the development trials the error is flat between about 15 and 30 s (9 s, VQF's
    /// default, follows the lab's field inhomogeneity more; 60 s lets gyro drift through).
    public var tauMag = 20.0

    // MARK: Gyroscope bias
    /// Estimate the bias while moving (from the inclination corrections).
    public var motionBiasEstimation = true
    /// Estimate the bias while at rest (from the averaged gyroscope).
    public var restBiasEstimation = true
    /// Initial one-sigma uncertainty of the bias, °/s.
    public var biasSigmaInit = 0.5
    /// Time in which the bias uncertainty grows by 0.1 °/s without information, s.
    public var biasForgettingTime = 100.0
    /// Largest bias that may be estimated, °/s per axis.
    public var biasClip = 2.0
    /// Steady-state one-sigma uncertainty under continuous motion updates, °/s.
    /// 0.03 (VQF: 0.1), fitted with cross-validation (docs/fusion-cv.md): chosen on either half of
    /// the development trials, it lowers 9D inclination and total error on the other half.
    public var biasSigmaMotion = 0.03
    /// Relative weight of the pseudo-measurement "vertical bias is zero" during motion.
    public var biasVerticalForgettingFactor = 0.0001
    /// Steady-state one-sigma uncertainty under continuous rest updates, °/s.
    public var biasSigmaRest = 0.03

    // MARK: Rest detection
    /// Time the rest conditions must hold before rest is declared, s.
    public var restMinTime = 1.5
    /// Time constant of the low-pass the rest detector compares against, s.
    public var restFilterTau = 0.5
    /// Largest deviation of the gyroscope from its low-pass at rest, °/s.
    public var restThresholdGyro = 2.0
    /// Largest deviation of the accelerometer from its low-pass at rest, m/s².
    public var restThresholdAcc = 0.5

    // MARK: Magnetic disturbance
    /// Detect and reject magnetic disturbances.
    public var magneticDisturbanceRejection = true
    /// Time constant of the low-pass on the field norm and dip used for detection, s.
    public var magCurrentTau = 0.05
    /// Time constant with which an accepted reference follows the undisturbed field, s.
    public var magRefTau = 20.0
    /// Largest relative deviation of the field norm from the reference (0.1 = 10 %).
    public var magNormThreshold = 0.1
    /// Largest deviation of the dip angle from the reference, degrees.
    public var magDipThreshold = 10.0
    /// Time a field must look consistent (while moving) to become the new reference, s.
    public var magNewTime = 20.0
    /// The same for the very first reference, s.
    public var magNewFirstTime = 5.0
    /// Smallest rotation rate at which a new reference may be learned, °/s.
    public var magNewMinGyro = 20.0
    /// Time the field must be back to the reference before the disturbance is cleared, s.
    public var magMinUndisturbedTime = 0.5
    /// Longest time a disturbed magnetometer is ignored before it is trusted again, s.
    public var magMaxRejectionTime = 60.0
    /// Speed at which the rejection budget recovers while undisturbed (× real time).
    public var magRejectionFactor = 2.0
    /// Heading gain, relative to the normal one, for a disturbed field once the rejection budget
    /// is spent. 1 uses it at full gain; VQF uses `1 / magRejectionFactor` (0.5).
    /// Default 0.5 (VQF's); no measurable difference on the development trials (docs/fusion-cv.md).
    public var magBudgetGainFactor = 0.5
    /// Low-pass the field norm and dip with a second-order Butterworth filter (as VQF does) instead
    /// of a first-order one; both with time constant `magCurrentTau`. Default first-order: the
    /// second-order one lost 0.043° total on held-out half B and won 0.0007° on A (docs/fusion-cv.md).
    public var magCurrentSecondOrder = false
    /// Gate the learning of a new reference on the low-passed rotation rate (the rest detector's
    /// `restFilterTau` low-pass, as VQF does) instead of the raw rate. Default on (VQF's); no
    /// measurable difference on the development trials (docs/fusion-cv.md).
    public var magGateLowPassedGyro = true

    public init() {}

    /// Sets the parameter named `key` (the property name) from `value` (booleans: 0 = false);
    /// `false` for an unknown key.
    public mutating func set(_ key: String, _ value: Double) -> Bool {
        for (name, path) in Self.numeric where name == key {
            self[keyPath: path] = value
            return true
        }
        for (name, path) in Self.switches where name == key {
            self[keyPath: path] = value != 0
            return true
        }
        return false
    }

    static var numeric: [(String, WritableKeyPath<Self, Double>)] { [
        ("tauAcc", \.tauAcc),
        ("tauMag", \.tauMag),
        ("biasSigmaInit", \.biasSigmaInit),
        ("biasForgettingTime", \.biasForgettingTime),
        ("biasClip", \.biasClip),
        ("biasSigmaMotion", \.biasSigmaMotion),
        ("biasVerticalForgettingFactor", \.biasVerticalForgettingFactor),
        ("biasSigmaRest", \.biasSigmaRest),
        ("restMinTime", \.restMinTime),
        ("restFilterTau", \.restFilterTau),
        ("restThresholdGyro", \.restThresholdGyro),
        ("restThresholdAcc", \.restThresholdAcc),
        ("magCurrentTau", \.magCurrentTau),
        ("magRefTau", \.magRefTau),
        ("magNormThreshold", \.magNormThreshold),
        ("magDipThreshold", \.magDipThreshold),
        ("magNewTime", \.magNewTime),
        ("magNewFirstTime", \.magNewFirstTime),
        ("magNewMinGyro", \.magNewMinGyro),
        ("magMinUndisturbedTime", \.magMinUndisturbedTime),
        ("magMaxRejectionTime", \.magMaxRejectionTime),
        ("magRejectionFactor", \.magRejectionFactor),
        ("magBudgetGainFactor", \.magBudgetGainFactor),
    ] }

    static var switches: [(String, WritableKeyPath<Self, Bool>)] { [
        ("motionBiasEstimation", \.motionBiasEstimation),
        ("restBiasEstimation", \.restBiasEstimation),
        ("magneticDisturbanceRejection", \.magneticDisturbanceRejection),
        ("magCurrentSecondOrder", \.magCurrentSecondOrder),
        ("magGateLowPassedGyro", \.magGateLowPassedGyro),
    ] }

    /// Every parameter name `set(_:_:)` accepts.
    public static var names: [String] { numeric.map(\.0) + switches.map(\.0) }
}
