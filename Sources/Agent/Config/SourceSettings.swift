import Sensors

/// `source:` — where samples come from and how fast.
public struct SourceSettings: Sendable, Equatable {
    /// `source.type`.
    public var kind: SourceKind
    /// `source.rate`: requested output data rate in Hz, 0 < rate ≤ 10000. Hardware may round it
    /// up to a supported rate.
    public var rate: Double
    /// `source.simulator` (used when `kind == .simulator`).
    public var simulator: SimulatorSettings
    /// `source.replay` (used when `kind == .replay`).
    public var replay: ReplaySettings
    /// `source.iio` (used when `kind == .iio`).
    public var iio: IIOSettings
    /// `source.i2c` (used when `kind == .i2c`).
    public var i2c: I2CSettings
    /// `source.data_ready`: GPIO line wired to the sensor's data-ready pin; `nil` means none
    /// (samples are paced by a timer).
    public var dataReady: DataReadySettings?
    /// `source.retry_max_s`: longest wait between attempts to re-open a failed source (device
    /// unbound, bus error), seconds; the first attempt waits 0.5 s and each failure doubles it.
    public var retryMaxSeconds: Double = 10
    /// `source.mount`: chip-to-board rotations (accelerometer+gyroscope, magnetometer).
    public var mount = MountSettings()
    /// Not a key: the chip motion engine's threshold in m/s² (`events.motion_threshold_ms2`) when
    /// `events.chip_motion` resolved to the chip (`AgentConfiguration.resolveChipMotion`); nil
    /// leaves `motion` to the software detector.
    public var chipMotionThresholdMS2: Double?
    /// Not a key: the chip motion engine's duration, s (the any-motion detector's `motionDuration`).
    public var chipMotionDuration = 0.1
    /// Not a key: the chip free-fall engine's settings (`events.free_fall_g`, `free_fall_min_s`)
    /// when `events.chip_engines` has `free_fall` and the chip decides it; nil leaves it to software.
    public var chipFreeFall: FreeFallInterruptSettings?
    /// Not a key: the chip tap engine's settings (`events.tap_g`, `double_tap_gap_s` and the tap
    /// detector's timing) when `events.chip_engines` has `tap` and the chip decides it.
    public var chipTap: TapInterruptSettings?
    /// Not a key: the chip 6D engine's settings (`events.orientation_deg`) when `orientation` is
    /// enabled, `events.chip_engines` allows it and the chip decides it.
    public var chipOrientation: OrientationInterruptSettings?

    /// Highest accepted `source.rate`, Hz.
    public static let maximumRate = 10_000.0

    public init(
        kind: SourceKind = .simulator,
        rate: Double = 200,
        simulator: SimulatorSettings = SimulatorSettings(),
        replay: ReplaySettings = ReplaySettings(),
        iio: IIOSettings = IIOSettings(),
        i2c: I2CSettings = I2CSettings(),
        dataReady: DataReadySettings? = nil
    ) {
        self.kind = kind
        self.rate = rate
        self.simulator = simulator
        self.replay = replay
        self.iio = iio
        self.i2c = i2c
        self.dataReady = dataReady
    }
}
