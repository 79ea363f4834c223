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
    /// any-motion detector (`off`), or the chip when it can (`auto`: a direct-I2C MPU-6050 or LSM6DSOX with
    /// `source.data_ready` and no FIFO). Resolved into `detectors.chipMotion` and
    /// `SourceSettings.chipMotionThresholdMS2` when the file is read.
    public var chipMotion = ChipMotionMode.auto

    /// `events.chip_motion` values.
    public enum ChipMotionMode: String, Sendable, Equatable, CaseIterable {
        case auto, off, on
    }

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
