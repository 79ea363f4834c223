import MotionCore

/// Noise densities of the simulated sensors (white noise; per-sample σ = density · √rate).
public struct SimulatorNoise: Sendable, Hashable {
    /// Gyroscope rate noise density, rad/s/√Hz (MPU-6050 class: 0.005 °/s/√Hz).
    public var gyroscopeDensity: Double
    /// Accelerometer noise density, m/s²/√Hz (MPU-6050 class: 400 µg/√Hz).
    public var accelerometerDensity: Double
    /// Magnetometer noise, µT RMS per sample (independent of rate).
    public var magnetometerSigma: Double

    public init(
        gyroscopeDensity: Double = 0.005.radians,
        accelerometerDensity: Double = 400e-6 * standardGravity,
        magnetometerSigma: Double = 0.3
    ) {
        self.gyroscopeDensity = gyroscopeDensity
        self.accelerometerDensity = accelerometerDensity
        self.magnetometerSigma = magnetometerSigma
    }

    public static let mpu6050Class = SimulatorNoise()
}

/// How `SimulatedIMU` behaves.
public struct SimulatorOptions: Sendable {
    /// The scripted motion and its ground truth.
    public var scenario: SimulationScenario
    /// Seed of the sensor-noise random stream (same seed, same samples).
    public var seed: UInt64
    /// `true`: samples are produced at wall-clock pace (`read` sleeps until they are due).
    /// `false`: `read` fills the buffer immediately and the source is lossless.
    public var realTime: Bool
    public var includeGyroscope: Bool
    public var includeMagnetometer: Bool
    /// Constant gyroscope bias, rad/s, sensor frame (default (0.5, −0.3, 0.2) °/s).
    public var gyroBias: Vector3
    /// Whether to add white noise to all sensors.
    public var noise: Bool
    /// Noise densities used when `noise` is on.
    public var noiseModel: SimulatorNoise
    /// Highest rate `start` will run, Hz.
    public var maximumRate: Double
    /// In real time, how many due samples wait for a late reader, like a sensor FIFO; when the
    /// reader falls further behind, the oldest are lost (a sequence gap, and `.discontinuity` on
    /// the first sample after it).
    public var fifoDepth: Int
    /// In real time, the FIFO watermark: `read` returns only once this many samples are due
    /// (every one still stamped with its own grid time), so the reader wakes once per burst
    /// instead of once per sample, like an IMU whose FIFO-watermark interrupt fires every N
    /// samples. Bursts end on the sample grid (at multiples of `burstSize`), so they stay aligned
    /// with batches of a multiple of their size. 1 = one wake-up per sample (a data-ready
    /// interrupt). Capped at `fifoDepth` and at the reader's buffer.
    public var burstSize: Int
    /// The simulated world (gravity, geomagnetic field).
    public var earth: SimulatedEarth

    public init(
        scenario: SimulationScenario,
        seed: UInt64 = 1,
        realTime: Bool = true,
        includeGyroscope: Bool = true,
        includeMagnetometer: Bool = true,
        gyroBias: Vector3 = Vector3(0.5.radians, -0.3.radians, 0.2.radians),
        noise: Bool = true,
        noiseModel: SimulatorNoise = .mpu6050Class,
        maximumRate: Double = 8000,
        fifoDepth: Int = 1024,
        burstSize: Int = 1,
        earth: SimulatedEarth = .standard
    ) {
        self.scenario = scenario
        self.seed = seed
        self.realTime = realTime
        self.includeGyroscope = includeGyroscope
        self.includeMagnetometer = includeMagnetometer
        self.gyroBias = gyroBias
        self.noise = noise
        self.noiseModel = noiseModel
        self.maximumRate = maximumRate
        self.fifoDepth = Swift.max(1, fifoDepth)
        self.burstSize = Swift.min(Swift.max(1, burstSize), self.fifoDepth)
        self.earth = earth
    }
}
