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

    public init() {}
}
