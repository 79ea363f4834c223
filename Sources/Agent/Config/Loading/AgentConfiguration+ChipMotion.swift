import Sensors
import MotionCore

extension AgentConfiguration {
    /// Why the chip's engines cannot decide events with this source, or nil when they can:
    /// only a direct-I2C MPU-6050, LSM6DSOX or BMI160 (`source.type: i2c`, `chip: mpu6050|lsm6dsox|bmi160`)
    /// whose INT pin is wired (`source.data_ready`) and read per sample (`source.i2c.fifo: false`).
    /// docs/chip-engines.md.
    var chipMotionProblem: String? {
        if source.kind != .i2c { return "source.type is \(source.kind.rawValue); the chip engine needs source.type: i2c" }
        if !(IMUChipModel(rawValue: source.i2c.chip)?.hasMotionInterrupt ?? false) {
            return "source.i2c.chip is \(source.i2c.chip); only the mpu6050's motion engine, the lsm6dsox's wake-up, free-fall, tap and 6D engines and the bmi160's any-motion, low-g and tap engines are supported"
        }
        if source.dataReady == nil { return "the chip raises motion on its INT pin: set source.data_ready" }
        if source.i2c.fifo { return "source.i2c.fifo is on; the chip engine needs one interrupt-source read per data-ready edge (fifo: false)" }
        return nil
    }

    /// Whether `source.mount.accel_gyro` is given as the identity: the chip's 6D faces are on its
    /// own axes, so the chip decides `orientation` only when they are the board's (a learned or
    /// absent mount may turn out to be another rotation at run time).
    var mountIsFixedIdentity: Bool {
        if case .fixed(let m)? = source.mount.inertial { return m == .identity }
        return false
    }

    /// `chip_motion: auto` without a `chip_engines` list keeps tap with the software detector when
    /// the LSM6DSOX's ODR for `source.rate` (the driver's table) is below the 416 Hz ST recommends for
    /// its tap engine (AN5272) and the software detector can run (`source.rate` ≥ its minimum, 100 Hz):
    /// the engine misses taps and reports knocks as taps there. Listing tap in `chip_engines`, or
    /// `on`, still hands it over (with `ConfigurationAdvice`'s warning); below the software's
    /// minimum the chip is the only tap detector left, so it keeps it.
    var autoKeepsTapInSoftware: Bool {
        guard events.chipMotion == .auto, events.chipEngines == nil, chipMotionProblem == nil,
              IMUChipModel(rawValue: source.i2c.chip) == .lsm6dsox,
              source.rate >= events.detectors.tap.minimumSampleRate else { return false }
        return RegisterDecoding.pickRate(LSM6DSx.rates, atLeast: source.rate).rate < LSM6DSx.tapMinimumODR
    }

    /// Resolves `events.chip_motion` (`auto`, `off`, `on`) and `events.chip_engines` into the
    /// detectors' and the source's settings; `on` with a source that cannot do it is an error at
    /// `events.chip_motion`, `on` with an engine the chip lacks one at `events.chip_engines`.
    mutating func resolveChipMotion(with reader: inout ConfigReader) {
        let problem = chipMotionProblem
        if events.chipMotion == .on, let problem {
            reader.report("events.chip_motion", "on needs a direct-I2C mpu6050, lsm6dsox or bmi160 with an INT line: \(problem); use auto or off")
        }
        let chip = IMUChipModel(rawValue: source.i2c.chip)
        let has = chip?.chipEngines ?? []
        if events.chipMotion != .off, problem == nil, events.chipEngines?.contains(.orientation) == true, !mountIsFixedIdentity {
            reader.report("events.chip_engines", "orientation from the chip needs source.mount.accel_gyro: identity (the chip reports its faces on its own axes); leave orientation out of chip_engines or mount the chip as the board")
        }
        if events.chipMotion == .on, problem == nil, let chip, let listed = events.chipEngines {
            let missing = listed.sorted().filter { !has.contains($0.flags) }
            if !missing.isEmpty {
                let one = missing.count == 1
                // The chips that have every missing engine (the lsm6dsox for orientation, it or the bmi160 for free_fall and tap).
                let haveThem = IMUChipModel.allCases.filter { m in missing.allSatisfy { m.chipEngines.contains($0.flags) } }
                reader.report("events.chip_engines", "chip_motion: on needs the \(chip.rawValue)'s \(missing.map(\.rawValue).joined(separator: " and ")) engine\(one ? "" : "s"), which it does not have (\(haveThem.map(\.rawValue).joined(separator: ", ")) only); leave \(one ? "it" : "them") out of chip_engines or use chip_motion: auto")
            }
        }
        let chipCan = events.enabled && problem == nil && events.chipMotion != .off
        let wanted = events.chipEngines ?? Set(EventSettings.ChipEngine.allCases)
        func use(_ e: EventSettings.ChipEngine) -> Bool { chipCan && wanted.contains(e) && has.contains(e.flags) }
        // 6D only for a reported `orientation` and with the chip's axes the board's.
        let useOrientation = use(.orientation) && mountIsFixedIdentity && events.detectors.enabled.contains(.orientation)
        let d = events.detectors
        events.detectors.chipMotion = use(.motion)
        source.chipMotionThresholdMS2 = use(.motion) ? d.anyMotion.accelerationThreshold : nil
        source.chipMotionDuration = d.anyMotion.motionDuration
        events.detectors.chipFreeFall = use(.freeFall)
        source.chipFreeFall = use(.freeFall) ? FreeFallInterruptSettings(d.freeFall) : nil
        let chipTap = use(.tap) && !autoKeepsTapInSoftware
        events.detectors.chipTap = chipTap
        source.chipTap = chipTap ? TapInterruptSettings(d.tap) : nil
        events.detectors.chipOrientation = useOrientation
        source.chipOrientation = useOrientation ? OrientationInterruptSettings(d.orientation, lowPassHz: d.tiltCutoff) : nil
    }
}
