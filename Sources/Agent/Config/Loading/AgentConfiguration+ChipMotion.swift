import Sensors

extension AgentConfiguration {
    /// Why the chip's motion engine cannot decide `motion` with this source, or nil when it can:
    /// only a direct-I2C MPU-6050 or LSM6DSOX (`source.type: i2c`, `chip: mpu6050|lsm6dsox`) whose INT pin is wired
    /// (`source.data_ready`) and read per sample (`source.i2c.fifo: false`). docs/events.md,
    /// "Chip interrupt engines".
    var chipMotionProblem: String? {
        if source.kind != .i2c { return "source.type is \(source.kind.rawValue); the chip engine needs source.type: i2c" }
        if !(IMUChipModel(rawValue: source.i2c.chip)?.hasMotionInterrupt ?? false) {
            return "source.i2c.chip is \(source.i2c.chip); only the mpu6050's motion engine and the lsm6dsox's wake-up engine are supported"
        }
        if source.dataReady == nil { return "the chip raises motion on its INT pin: set source.data_ready" }
        if source.i2c.fifo { return "source.i2c.fifo is on; the chip engine needs one interrupt-source read per data-ready edge (fifo: false)" }
        return nil
    }

    /// Resolves `events.chip_motion` (`auto`, `off`, `on`) into the detectors' and the source's
    /// settings; `on` with a source that cannot do it is an error at `events.chip_motion`.
    mutating func resolveChipMotion(with reader: inout ConfigReader) {
        let problem = chipMotionProblem
        if events.chipMotion == .on, let problem {
            reader.report("events.chip_motion", "on needs a direct-I2C mpu6050 or lsm6dsox with an INT line: \(problem); use auto or off")
        }
        let useChip = events.enabled && problem == nil && events.chipMotion != .off
        events.detectors.chipMotion = useChip
        source.chipMotionThresholdMS2 = useChip ? events.detectors.anyMotion.accelerationThreshold : nil
        source.chipMotionDuration = events.detectors.anyMotion.motionDuration
    }
}
