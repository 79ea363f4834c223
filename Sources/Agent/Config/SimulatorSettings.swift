/// `source.simulator:` — synthetic motion.
public struct SimulatorSettings: Sendable, Equatable {
    /// Scenarios `source.simulator.scenario` accepts.
    public static let scenarios = ["stationary", "rotation", "walking", "running", "cycling", "automotive"]

    /// `scenario`: one of `SimulatorSettings.scenarios`, or a timeline of them with seconds per
    /// segment (`walking:60,running:60,stationary`; the last segment lasts forever).
    public var scenario: String
    /// `seed`: noise generator seed; the same seed gives the same samples.
    public var seed: UInt64
    /// `real_time`: pace samples at `source.rate` in wall-clock time (false: as fast as possible).
    public var realTime: Bool
    /// `magnetometer`: simulate a magnetometer.
    public var magnetometer: Bool
    /// `gyroscope`: simulate a gyroscope.
    public var gyroscope: Bool
    /// `gyro_bias_dps`: constant gyroscope bias b, degrees per second, added as (b, −0.6 b, 0.4 b)
    /// on x, y, z (SourceFactory).
    public var gyroBiasDegreesPerSecond: Double
    /// `noise`: add sensor noise.
    public var noise: Bool
    /// `burst`: samples per wake-up in real time, like an IMU's FIFO-watermark interrupt (each
    /// sample keeps its own timestamp). 0 = auto (`effectiveBurst`), 1 = one wake-up per sample.
    public var burst: Int

    /// Highest accepted `burst` (the simulated FIFO depth).
    public static let maximumBurst = 1024
    /// Most source time the auto burst holds samples back, seconds.
    public static let autoBurstMaximumDelay = 0.010

    /// The burst the simulator runs for `burst`: the configured value, or for 0 (auto) the
    /// source samples of the fastest-publishing enabled stream's message (so no message waits
    /// longer than it would without bursts), at most 10 ms of samples, at least 1.
    /// At the defaults: 1 kHz → 10 (100 wake-ups/s), 200 Hz → 2, ≤ 199 Hz → 1.
    public func effectiveBurst(sourceRate: Double, streams: StreamSettingsSet) -> Int {
        if burst > 0 { return min(burst, Self.maximumBurst) }
        guard sourceRate.isFinite, sourceRate > 0 else { return 1 }
        var samples = (sourceRate * Self.autoBurstMaximumDelay).rounded(.down)
        for s in [streams.accelerometer, streams.gyroscope, streams.magnetometer, streams.motion]
        where s.enabled && s.publishRate > 0 {
            samples = min(samples, (sourceRate / s.publishRate).rounded(.down))
        }
        return max(1, min(Int(samples), Self.maximumBurst))
    }

    public init(
        scenario: String = "walking",
        seed: UInt64 = 1,
        realTime: Bool = true,
        magnetometer: Bool = true,
        gyroscope: Bool = true,
        gyroBiasDegreesPerSecond: Double = 0.5,
        noise: Bool = true,
        burst: Int = 0
    ) {
        self.scenario = scenario
        self.seed = seed
        self.realTime = realTime
        self.magnetometer = magnetometer
        self.gyroscope = gyroscope
        self.gyroBiasDegreesPerSecond = gyroBiasDegreesPerSecond
        self.noise = noise
        self.burst = burst
    }
}
