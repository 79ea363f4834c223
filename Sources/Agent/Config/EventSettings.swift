import MotionCore

/// `events:` — motion events (tap, shock, free fall, motion, tilt thresholds, tamper, fall,
/// vibration) and their state topics; docs/events.md.
public struct EventSettings: Sendable, Equatable {
    /// `enabled`: run the detectors, publish `events/motion` and the `state/…` topics.
    public var enabled = false
    /// The detectors' settings (MotionCore).
    public var detectors = MotionEventConfiguration()
    /// `thresholds.<name>.device_class`: Home Assistant device class per tilt threshold (same
    /// order as `detectors.tiltThresholds`), `nil` for none.
    public var deviceClasses: [String?] = []
    /// `chip_motion`: who decides `motion` — the chip's own motion engine (`on`), the software
    /// any-motion detector (`off`), or the chip when it can (`auto`: a direct-I2C MPU-6050, LSM6DSOX or BMI160
    /// with `source.data_ready` and no FIFO). Resolved into `detectors.chipMotion` and
    /// `SourceSettings.chipMotionThresholdMS2` when the file is read.
    public var chipMotion = ChipMotionMode.auto

    /// `events.chip_motion` values.
    public enum ChipMotionMode: String, Sendable, Equatable, CaseIterable {
        case auto, off, on
    }

    /// `chip_engines`: which of the chip's engines `chip_motion` applies to: `motion` (MPU-6050
    /// motion detection, LSM6DSOX wake-up, BMI160 any-motion), `free_fall` and `tap` (tap and
    /// double tap; LSM6DSOX, BMI160 low-g and tap), `orientation` (LSM6DSOX 6D only); nil (the key absent) = every engine the chip has. An engine left out, or one the
    /// chip lacks, stays with the software detector; `chip_motion: on` with a listed engine the
    /// chip lacks is refused.
    public var chipEngines: Set<ChipEngine>?

    /// `events.chip_engines` items.
    public typealias ChipEngine = MotionCore.ChipEngine

    /// Home Assistant's binary-sensor device classes (`BinarySensorDeviceClass`, HA 2025.4): what
    /// `events.thresholds.<name>.device_class` may be (HA refuses a discovery with another). Kept
    /// with the settings so the configuration reader stands alone (the `config` fuzz target).
    public static let homeAssistantDeviceClasses = [
        "battery", "battery_charging", "carbon_monoxide", "cold", "connectivity", "door", "garage_door", "gas", "heat",
        "light", "lock", "moisture", "motion", "moving", "occupancy", "opening", "plug", "power", "presence", "problem",
        "running", "safety", "smoke", "sound", "tamper", "update", "vibration", "window",
    ]

    public init() {}
}
