/// What a motion-event detector reports.
///
/// The names (`name`) are the `type` field of `events/motion` payloads and of
/// `edgemotion events` output lines.
@frozen
public enum MotionEventType: UInt8, Sendable, BitwiseCopyable, Hashable, CaseIterable {
    /// A single tap: a short high-frequency impulse with quiet before and after.
    case tap
    /// The second of two taps close together (the first was reported as `tap` too).
    case doubleTap
    /// An impact: specific-force magnitude above the shock threshold (`peak` g, `duration` s).
    case shock
    /// A free fall ended: specific force near zero for `duration` s (`dropHeight` m = g t²/2).
    case freeFall
    /// The device started moving after being stationary.
    case motion
    /// The device has been stationary for the configured time after moving.
    case stationary
    /// Motion lasting long enough to be more than a bump (Android's one-shot significant motion).
    case significantMotion
    /// A named tilt threshold changed state (`index` names it, `state` is the new state).
    case tiltThreshold
    /// Motion or a tilt change while tamper detection was armed.
    case tamper
    /// A person's fall: an impact, then lying still in a changed orientation. Advisory only.
    case fall
    /// Vibration started (running): RMS above the on-level for the on-dwell.
    case vibrationStart
    /// Vibration stopped (idle): RMS below the off-level for the off-dwell.
    case vibrationStop
    /// The vibration level changed: short-term over long-term average (STA/LTA) left its band.
    case vibrationChanged
    /// The face pointing up changed (6D orientation: `face`, `previousFace`).
    case orientation

    /// The wire name (`events/motion` `type`, `edgemotion events` output).
    public var name: String {
        switch self {
        case .tap: "tap"
        case .doubleTap: "double_tap"
        case .shock: "shock"
        case .freeFall: "free_fall"
        case .motion: "motion"
        case .stationary: "stationary"
        case .significantMotion: "significant_motion"
        case .tiltThreshold: "tilt_threshold"
        case .tamper: "tamper"
        case .fall: "fall"
        case .vibrationStart: "vibration_start"
        case .vibrationStop: "vibration_stop"
        case .vibrationChanged: "vibration_changed"
        case .orientation: "orientation"
        }
    }

    /// The type with wire name `name`, or `nil`.
    public init?(name: String) {
        guard let t = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = t
    }
}

/// One detected motion event, a plain value (no allocation to create or pass on).
///
/// `time` is the sample clock (s; CLOCK_MONOTONIC in the agent, the recording's `t_s` on the
/// CLI) of the sample at which the detector decided, so `time` minus the physical onset is the
/// detector's latency. Fields that do not apply to a type are `nan` (or 0 / `false`).
@frozen
public struct MotionEvent: Sendable, BitwiseCopyable, Equatable {
    public var type: MotionEventType
    /// Decision time, s (sample clock).
    public var time: Double
    /// When the physical event began, s (sample clock): the first sample of the impact, fall,
    /// tap or motion; for thresholds, when the condition started to hold.
    public var onset: Double
    /// Peak specific-force magnitude in g (shock, fall), the tap's peak high-passed acceleration
    /// in g (tap), or the vibration RMS in m/s² (vibration events).
    public var peak: Double = .nan
    /// Seconds: the shock's or free fall's length; stationary: how long it has been still.
    public var duration: Double = .nan
    /// Free fall: implied drop height in m, h = g·t²/2 (a 0.35 s fall is 0.60 m).
    public var dropHeight: Double = .nan
    /// Tilt from the zero pose in degrees (tilt thresholds, tamper, fall).
    public var angle: Double = .nan
    /// STA/LTA ratio (vibration_changed).
    public var ratio: Double = .nan
    /// Which tilt threshold (index into the configured list).
    public var index: Int = 0
    /// The threshold's new state (tilt_threshold).
    public var state: Bool = false
    /// The face now pointing up (orientation).
    public var face: DeviceFace = .unknown
    /// The face before (orientation; `.unknown` for the first face after start).
    public var previousFace: DeviceFace = .unknown
    /// Decided by the sensor chip's own interrupt engine (`"source":"chip"` on the wire), not
    /// by a software detector on the samples.
    public var fromChip: Bool = false

    @inlinable
    public init(type: MotionEventType, time: Double, onset: Double) {
        self.type = type
        self.time = time
        self.onset = onset
    }
}
