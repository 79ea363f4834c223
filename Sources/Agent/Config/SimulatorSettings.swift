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
    /// `gyro_bias_dps`: constant gyroscope bias added on every axis, degrees per second.
    public var gyroBiasDegreesPerSecond: Double
    /// `noise`: add sensor noise.
    public var noise: Bool

    public init(
        scenario: String = "walking",
        seed: UInt64 = 1,
        realTime: Bool = true,
        magnetometer: Bool = true,
        gyroscope: Bool = true,
        gyroBiasDegreesPerSecond: Double = 0.5,
        noise: Bool = true
    ) {
        self.scenario = scenario
        self.seed = seed
        self.realTime = realTime
        self.magnetometer = magnetometer
        self.gyroscope = gyroscope
        self.gyroBiasDegreesPerSecond = gyroBiasDegreesPerSecond
        self.noise = noise
    }
}
