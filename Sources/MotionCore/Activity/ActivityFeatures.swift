/// The per-window features the activity model reads. All are orientation-independent: computed
/// from the magnitude of the specific force, its projection on the window's mean gravity
/// direction, and the tilt of that direction — never from a fixed axis.
///
/// Magnitudes are in m/s² (of specific force, gravity included before the window mean is
/// removed), frequencies in Hz. The `log…` features are natural logs of `value + 0.001`.
@frozen
public struct ActivityFeatures: Sendable, Hashable, BitwiseCopyable {
    /// Number of features the model uses (indices 0…modelFeatureCount−1 of `subscript`).
    public static let modelFeatureCount = 12
    /// Names in model order, as written by `edgemotion classify --features-out`.
    public static let names = [
        "log_std_mag", "log_vertical_std", "log_horizontal_rms", "hf_fraction", "gait_fraction",
        "low_fraction", "log_tilt_max_deg", "periodicity", "cadence_hz", "log_jerk",
        "h_spectral_slope", "h_low_fraction",
    ]

    /// log of the standard deviation of |f| over the window.
    public var logStdMagnitude = 0.0
    /// log of the standard deviation of the dynamic specific force along the mean gravity direction.
    public var logVerticalStd = 0.0
    /// log of the rms of the dynamic specific force perpendicular to gravity.
    public var logHorizontalRMS = 0.0
    /// Fraction of |f| spectral power (above 0.2 Hz) at ≥ 5 Hz: vehicle and road vibration.
    public var highFrequencyFraction = 0.0
    /// Fraction of |f| spectral power in the gait band 0.8–3.5 Hz.
    public var gaitFraction = 0.0
    /// Fraction of |f| spectral power in 0.2–0.8 Hz (vehicle accelerating, braking, swaying).
    public var lowFrequencyFraction = 0.0
    /// log of the largest angle (degrees) between a 1 s mean of f and the window mean: hand tilts.
    public var logTiltMax = 0.0
    /// Height of the highest normalised autocorrelation peak of |f| at lags of 0.28–2 s.
    public var periodicity = 0.0
    /// Step frequency of that peak, Hz (1 / lag).
    public var cadence = 0.0
    /// log of the mean absolute change of |f| per internal sample.
    public var logJerk = 0.0

    /// Horizontal spectral slope: natural log of the ratio of the power of the dynamic specific
    /// force perpendicular to gravity at 6–12.5 Hz to its power at 0.8–3 Hz. Positive for road and
    /// body vibration in a vehicle, negative for a hand-held device (slow drift and tilts) and gait.
    public var horizontalSpectralSlope = 0.0
    /// Fraction of that horizontal power (above 0.2 Hz) below 0.8 Hz: slow hand drift and tilts.
    public var horizontalLowFraction = 0.0

    /// log of the ratio of |f| variance in the newer half of the window to the older half: large
    /// magnitudes mean the window straddles a change (not used by the model; such windows don't vote).
    public var halfEnergyLogRatio = 0.0

    /// log of the standard deviation of |f| over the newer half of the window (about |f|'s window
    /// mean): a quiet newer half means the carrier has stopped, whatever the older half held.
    public var logStdNewerHalf = 0.0

    /// Kurtosis of |f| over the window (fourth central moment over the squared variance, no unit;
    /// 0 for a constant |f|): 1.5 for a pure sinusoid, 3 for Gaussian noise, well above 3 when
    /// |f| is a train of short peaks — the heel strikes of walking and running. Not used by the
    /// model; it gates the pedalling rule (pedalling is smooth: no impacts).
    public var magnitudeKurtosis = 0.0

    /// Mean |f| over the window, m/s² (≈ 9.81 for raw acceleration; not used by the model, it
    /// guards against input without gravity).
    public var meanMagnitude = 0.0

    // Gyroscope features, only meaningful when `gyroscopeAvailable`; not used by the fitted model
    // (in the development data only the car recordings have a gyro: it would leak the label).
    /// The whole window had gyroscope readings.
    public var gyroscopeAvailable = false
    /// rms of the rotation rate (mean removed per axis), rad/s.
    public var gyroRMS = 0.0
    /// Highest normalised autocorrelation of the rotation-rate vector at lags of 0.55–1.7 s (pedalling).
    public var gyroPeriodicity = 0.0
    /// Frequency of that peak, Hz.
    public var gyroCadence = 0.0
    /// rms of the rotation rate as measured (mean kept: a steady turn counts), rad/s.
    public var gyroTotalRMS = 0.0
    /// Share of the rotation rate's mean square about the window's gravity direction (yaw), 0…1:
    /// Σ (ω·ĝ)² / Σ |ω|². Rotation with no preferred axis gives 1/3, a pure turn 1, a pure
    /// pitch or roll (rotation about a horizontal axis) 0; independent of how the device is held.
    public var gyroYawShare = 0.0

    public init() {}

    /// Model feature `i` (0 ..< modelFeatureCount).
    @inlinable
    public subscript(i: Int) -> Double {
        switch i {
        case 0: logStdMagnitude
        case 1: logVerticalStd
        case 2: logHorizontalRMS
        case 3: highFrequencyFraction
        case 4: gaitFraction
        case 5: lowFrequencyFraction
        case 6: logTiltMax
        case 7: periodicity
        case 8: cadence
        case 9: logJerk
        case 10: horizontalSpectralSlope
        case 11: horizontalLowFraction
        default: .nan
        }
    }
}
