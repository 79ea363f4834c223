/// A binary state driven by a value with hysteresis and minimum dwell: it turns on once the
/// value has stayed above `onAbove` for `onDwell` seconds, and off once it has stayed below
/// `offBelow` for `offDwell` seconds. Between the two levels nothing changes, so a value
/// hovering at one level does not chatter. Value type, no allocation.
public struct HysteresisSwitch: Sendable, BitwiseCopyable, Equatable {
    public var onAbove: Double
    public var offBelow: Double
    public var onDwell: Double
    public var offDwell: Double
    /// The current state.
    public private(set) var isOn = false
    /// When the value began to satisfy the pending transition (s), `nan` when none is pending.
    public private(set) var pendingSince = Double.nan

    /// `offBelow` must not exceed `onAbove`; dwells are seconds ≥ 0.
    public init(onAbove: Double, offBelow: Double, onDwell: Double = 0, offDwell: Double = 0, initiallyOn: Bool = false) {
        self.onAbove = onAbove
        self.offBelow = Swift.min(offBelow, onAbove)
        self.onDwell = Swift.max(0, onDwell)
        self.offDwell = Swift.max(0, offDwell)
        isOn = initiallyOn
    }

    /// Feeds one value at `time` (s). Returns the new state when it changed, else `nil`.
    public mutating func update(_ value: Double, at time: Double) -> Bool? {
        let wantsChange = isOn ? value < offBelow : value > onAbove
        guard wantsChange else {
            pendingSince = .nan
            return nil
        }
        if pendingSince.isNaN { pendingSince = time }
        guard time - pendingSince >= (isOn ? offDwell : onDwell) - 1e-9 else { return nil }
        isOn.toggle()
        let changed = isOn
        onsetOfLastChange = pendingSince
        pendingSince = .nan
        return changed
    }

    /// When the condition behind the last change began to hold (s).
    public private(set) var onsetOfLastChange = Double.nan

    /// Forces the state without an event (restoring persisted state).
    public mutating func reset(on: Bool) {
        isOn = on
        pendingSince = .nan
    }
}
