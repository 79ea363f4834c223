import MotionCore

/// What a chip's motion-detection engine is set to, in the software any-motion detector's units
/// (`events.motion_threshold_ms2`, `AnyMotionConfiguration`), converted to register codes by the
/// driver (`MPU6050.motionThresholdCode`).
public struct MotionInterruptSettings: Sendable, Hashable {
    /// m/s²: high-passed acceleration on any axis above this counts as motion.
    public var thresholdMS2: Double
    /// Seconds the threshold must be exceeded before the interrupt is raised.
    public var duration: Double

    public init(thresholdMS2: Double, duration: Double) {
        self.thresholdMS2 = thresholdMS2
        self.duration = duration
    }
}

/// What a chip's free-fall engine is set to, in the software free-fall detector's units
/// (`events.free_fall_g`, `events.free_fall_min_s`, `FreeFallConfiguration`); the driver rounds
/// them to its register codes (`LSM6DSx.freeFallThresholdCode`).
public struct FreeFallInterruptSettings: Sendable, Hashable {
    /// g: acceleration magnitude below this (all axes low) counts as falling.
    public var thresholdG: Double
    /// Seconds the magnitude must stay below before the interrupt is raised.
    public var duration: Double

    public init(thresholdG: Double, duration: Double) {
        self.thresholdG = thresholdG
        self.duration = duration
    }
}

/// What a chip's single/double-tap engine is set to, in the software tap detector's units
/// (`TapConfiguration`), rounded by the driver to its codes (`LSM6DSx.tapThresholdCode`,
/// `LSM6DSx.tapTimingCodes`).
public struct TapInterruptSettings: Sendable, Hashable {
    /// g: a tap's peak (the chip: the slope between two samples, per axis) above this.
    public var thresholdG: Double
    /// Seconds: the longest over-threshold impulse that still counts as a tap (chip SHOCK).
    public var maximumDuration: Double
    /// Seconds of quiet needed after a tap (chip QUIET).
    public var quietAfter: Double
    /// Seconds: the longest gap between the two taps of a double tap (chip DUR).
    public var doubleTapMaximumGap: Double

    public init(thresholdG: Double, maximumDuration: Double, quietAfter: Double, doubleTapMaximumGap: Double) {
        self.thresholdG = thresholdG
        self.maximumDuration = maximumDuration
        self.quietAfter = quietAfter
        self.doubleTapMaximumGap = doubleTapMaximumGap
    }
}

/// What a chip's 6D orientation engine is set to, in the software orientation detector's units
/// (`events.orientation_deg`, `OrientationConfiguration.threshold`): the driver takes its SIXD_THS
/// code (`LSM6DSx.orientationThresholdCode`). The dwell stays in software (`ChipOrientationGate`).
public struct OrientationInterruptSettings: Sendable, Hashable {
    /// Degrees, 50, 60, 70 or 80 (another angle programs nothing: `configure` refuses it).
    public var thresholdDegrees: Double
    /// Hz: the software orientation detector's low-pass (`events.tilt_cutoff_hz`), which the
    /// chip's own 6D low-pass is set nearest (`LSM6DSx.control8Accel6D`).
    public var lowPassHz: Double

    public init(thresholdDegrees: Double, lowPassHz: Double = MotionEventConfiguration().tiltCutoff) {
        self.thresholdDegrees = thresholdDegrees
        self.lowPassHz = lowPassHz
    }
}

extension OrientationInterruptSettings {
    /// The orientation detector's threshold and low-pass (`tiltCutoff`, Hz).
    public init(_ c: OrientationConfiguration, lowPassHz: Double) { self.init(thresholdDegrees: c.threshold, lowPassHz: lowPassHz) }
}

// The software detectors' settings → the chip engines' (one mapping for the agent's config and
// the library's `MotionManager.i2c(chipEvents:)`).
extension MotionInterruptSettings {
    /// The any-motion detector's acceleration threshold and motion duration.
    public init(_ c: AnyMotionConfiguration) { self.init(thresholdMS2: c.accelerationThreshold, duration: c.motionDuration) }
}

extension FreeFallInterruptSettings {
    /// The free-fall detector's threshold and minimum duration.
    public init(_ c: FreeFallConfiguration) { self.init(thresholdG: c.threshold, duration: c.minimumDuration) }
}

extension TapInterruptSettings {
    /// The tap detector's threshold, impulse limit, quiet-after and double-tap gap.
    public init(_ c: TapConfiguration) {
        self.init(thresholdG: c.threshold, maximumDuration: c.maximumDuration, quietAfter: c.quietAfter,
                  doubleTapMaximumGap: c.doubleTapMaximumGap)
    }
}
