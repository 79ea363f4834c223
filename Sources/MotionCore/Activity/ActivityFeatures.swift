/// The per-window features the activity model reads. Every one is independent of how the device
/// is mounted: computed from the magnitude of the specific force |f|, its projection on the
/// *estimated* gravity direction (a low-pass of f, never an assumed axis), the rest of it
/// (horizontal plane, as a magnitude) and how fast that estimated direction turns. No feature
/// reads a particular sensor axis.
///
/// All are computed on the detector's internal grid (10 Hz by default), so they mean the same for
/// a 10 Hz source and a 1 kHz one. Magnitudes in m/s², frequencies in Hz, angles in degrees. The
/// `log…` features are natural logs of `value + 0.001` (or `+ 0.01` for angles).
@frozen
public struct ActivityFeatures: Sendable, Hashable, BitwiseCopyable {
    /// Number of features the model uses (indices 0…modelFeatureCount−1 of `subscript`).
    public static let modelFeatureCount = 14
    /// Names in model order, as written by `edgemotion classify --features-out`.
    public static let names = [
        "log_std_mag", "log_vertical_std", "log_horizontal_rms", "periodicity", "cadence_hz",
        "stride_regularity", "low_fraction", "gait_fraction", "high_fraction", "spectral_entropy",
        "log_jerk", "log_tilt_rate", "log_tilt_range", "crest_factor",
    ]

    /// log of the standard deviation of |f| over the window.
    public var logStdMagnitude = 0.0
    /// log of the standard deviation of the dynamic specific force along the estimated vertical.
    public var logVerticalStd = 0.0
    /// log of the rms of the dynamic specific force in the estimated horizontal plane.
    public var logHorizontalRMS = 0.0
    /// Height of the highest normalised autocorrelation peak of |f| at lags of 0.25–2 s.
    public var periodicity = 0.0
    /// Step frequency of that peak, Hz (1 / lag, with the lag interpolated between grid samples).
    public var cadence = 0.0
    /// Normalised autocorrelation of |f| at twice that lag (one stride: left + right step).
    public var strideRegularity = 0.0
    /// Fraction of |f| spectral power (above 0.2 Hz) in 0.2–0.9 Hz: vehicles, rowing, hand drift.
    public var lowFrequencyFraction = 0.0
    /// Fraction in 0.9–2.6 Hz: walking steps, pedalling.
    public var gaitFraction = 0.0
    /// Fraction above 2.6 Hz: running steps, impacts, vibration.
    public var highFrequencyFraction = 0.0
    /// Normalised Shannon entropy (0…1) of the |f| power spectrum above 0.2 Hz: 1 for white noise
    /// (road vibration), low for one clean periodicity.
    public var spectralEntropy = 0.0
    /// log of the mean absolute rate of change of |f|, m/s³.
    public var logJerk = 0.0
    /// log of the mean rate at which the estimated gravity direction turns, deg/s (a rolling
    /// limb, a hand that tilts; ~0 on a mount).
    public var logTiltRate = 0.0
    /// log of the largest angle between the estimated gravity direction and its window mean, deg.
    public var logTiltRange = 0.0
    /// Largest |f| deviation from its window mean over its standard deviation (impacts: jumping).
    public var crestFactor = 0.0

    /// log of the ratio of |f| variance in the newer half of the window to the older half: large
    /// magnitudes mean the window straddles a change (not used by the model; such windows don't vote).
    public var halfEnergyLogRatio = 0.0
    /// log of the standard deviation of |f| over the newer half of the window (about its own
    /// mean): a quiet newer half means the carrier has stopped, whatever the older half held.
    public var logStdNewerHalf = 0.0
    /// Mean |f| over the window, m/s² (≈ 9.81 for raw acceleration; not used by the model, it
    /// guards against input without gravity).
    public var meanMagnitude = 0.0

    // Gyroscope summary, only meaningful when `gyroscopeAvailable`; not used by the model (the
    // model must work without a gyroscope, and in the development data gyro presence follows the
    // data set, hence the label).
    /// The whole window had gyroscope readings.
    public var gyroscopeAvailable = false
    /// rms of the rotation-rate magnitude over the window, rad/s.
    public var gyroRMS = 0.0

    public init() {}

    /// Model feature `i` (0 ..< modelFeatureCount).
    @inlinable
    public subscript(i: Int) -> Double {
        switch i {
        case 0: logStdMagnitude
        case 1: logVerticalStd
        case 2: logHorizontalRMS
        case 3: periodicity
        case 4: cadence
        case 5: strideRegularity
        case 6: lowFrequencyFraction
        case 7: gaitFraction
        case 8: highFrequencyFraction
        case 9: spectralEntropy
        case 10: logJerk
        case 11: logTiltRate
        case 12: logTiltRange
        case 13: crestFactor
        default: .nan
        }
    }
}
