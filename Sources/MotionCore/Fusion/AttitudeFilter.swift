/// What every attitude filter produces per sample: one state, seen as 6D and as 9D.
///
/// Both quaternions rotate sensor-frame vectors into an earth frame with z up. `quaternion9D`
/// is heading-aligned to magnetic north in ENU (x east, y north, z up) — the convention of the
/// BROAD ground truth and of VQF; `quaternion6D` has an arbitrary but drifting-only-by-gyro
/// heading. They differ only by a rotation about the vertical.
@frozen
public struct FusionOutput: Sendable, BitwiseCopyable {
    /// Sensor → earth (z up, arbitrary heading), from gyroscope and accelerometer only.
    public var quaternion6D: Quaternion
    /// Sensor → ENU with y towards magnetic north. Equals `quaternion6D` until a magnetometer
    /// sample has been seen (`headingAvailable`).
    public var quaternion9D: Quaternion
    /// Estimated gyroscope bias in rad/s, sensor frame (subtract it from raw rates).
    public var gyroBias: Vector3
    /// One-sigma uncertainty of `gyroBias`, rad/s.
    public var gyroBiasSigma: Double
    /// The filter currently believes the device is at rest.
    public var restDetected: Bool
    /// The magnetometer is currently being rejected as disturbed.
    public var magneticDisturbance: Bool
    /// A magnetometer has contributed, so `quaternion9D` is north-referenced.
    public var headingAvailable: Bool

    @inlinable
    public init(
        quaternion6D: Quaternion = .identity, quaternion9D: Quaternion = .identity,
        gyroBias: Vector3 = .zero, gyroBiasSigma: Double = 0, restDetected: Bool = false,
        magneticDisturbance: Bool = false, headingAvailable: Bool = false
    ) {
        self.quaternion6D = quaternion6D
        self.quaternion9D = quaternion9D
        self.gyroBias = gyroBias
        self.gyroBiasSigma = gyroBiasSigma
        self.restDetected = restDetected
        self.magneticDisturbance = magneticDisturbance
        self.headingAvailable = headingAvailable
    }
}

/// An attitude filter: strapdown gyro integration corrected by the accelerometer (inclination)
/// and, when present, the magnetometer (heading).
///
/// Implementations are value types with caller-owned state, as in x-io Fusion: `update` does
/// no allocation, locking or logging.
public protocol AttitudeFilter: Sendable {
    /// A filter for samples arriving about every `samplePeriod` seconds.
    init(samplePeriod: Double)

    /// Feeds one sample. Units: `gyroscope` rad/s (raw), `accelerometer` specific force m/s²,
    /// `magnetometer` µT or `nil` when this sample has none; all in the sensor frame.
    /// `dt` is the time since the previous sample in seconds.
    mutating func update(gyroscope: Vector3, accelerometer: Vector3, magnetometer: Vector3?, dt: Double)

    /// Freezes (`false`) or resumes online gyro-bias learning (config `fusion.gyro_bias_learning`).
    mutating func setGyroBiasLearning(_ enabled: Bool)

    /// The state after the last `update`.
    var output: FusionOutput { get }
}

extension AttitudeFilter {
    /// Freezes (or resumes) online gyro-bias learning. Filters without it ignore the call.
    public mutating func setGyroBiasLearning(_ enabled: Bool) {}
}
