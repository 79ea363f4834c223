/// Which detectors run and how (the `events:` section of the agent's config).
public struct MotionEventConfiguration: Sendable, Equatable {
    /// Named tilt thresholds, in order (`MotionEvent.index` points here).
    public var tiltThresholds: [TiltThreshold] = []
    /// Hz: low-pass of the accelerometer for tilt and the up-vector.
    public var tiltCutoff = 2.0
    public var anyMotion = AnyMotionConfiguration()
    /// The chip's motion engine decides `motion`: samples flagged `IMUSample.Flags.chipMotion`
    /// start an episode (`ChipMotionGate`), and the software any-motion detector's own `motion`
    /// events are withheld (it still runs: `stationary`, `significant_motion`, tamper and the
    /// `moving` state stay software, and it is the reference the chip engine is tested against).
    public var chipMotion = false
    /// The chip's free-fall engine decides `free_fall`: samples flagged `.chipFreeFall` make the
    /// events (`ChipFreeFallGate`), the software free-fall detector's are withheld (it still runs
    /// as the reference).
    public var chipFreeFall = false
    /// The chip's tap engine decides `tap` and `double_tap` (`.chipTap`, `.chipDoubleTap`,
    /// `ChipTapGate`); the software tap detector's are withheld (it still runs as the reference).
    public var chipTap = false
    /// The chip's 6D engine decides `orientation` (`.chipOrientation` with `chipFace`,
    /// `ChipOrientationGate`, same dwell); the software orientation detector's are withheld (it
    /// still runs as the reference when `orientation` is enabled).
    public var chipOrientation = false
    public var shock = ShockConfiguration()
    public var freeFall = FreeFallConfiguration()
    public var tap = TapConfiguration()
    public var tamper = TamperConfiguration()
    public var fall = FallConfiguration()
    /// The 6D orientation (`orientation` events; off by default, enable it in `enabled`).
    public var orientation = OrientationConfiguration()
    public var vibration = VibrationConfiguration()
    /// Event types that are reported: all but `fall` and `orientation` by default (fall
    /// detection is for body-worn devices, a dropped box would look like a fall; orientation is
    /// asked for with `events.orientation`).
    public var enabled: Set<MotionEventType> = Set(MotionEventType.allCases).subtracting([.fall, .orientation])
    public init() {}

    /// The first problem, naming the setting, or `nil`.
    public func validationError() -> String? {
        for (i, t) in tiltThresholds.enumerated() {
            if t.name.isEmpty { return "tilt threshold \(i): the name is empty" }
            if !(0...180).contains(t.onAbove) || !(0...180).contains(t.offBelow) {
                return "tilt threshold \(t.name): angles must be 0…180 degrees"
            }
            if t.offBelow > t.onAbove { return "tilt threshold \(t.name): below (\(t.offBelow)) must not exceed above (\(t.onAbove))" }
            if t.onDwell < 0 || t.offDwell < 0 { return "tilt threshold \(t.name): dwell must be ≥ 0 s" }
        }
        if Set(tiltThresholds.map(\.name)).count != tiltThresholds.count { return "tilt thresholds: names must be unique" }
        if vibration.bands.count > VibrationReading.maximumBands {
            return "vibration.bands: at most \(VibrationReading.maximumBands) bands"
        }
        for b in vibration.bands where !(b.low > 0 && b.high > b.low) {
            return "vibration band \(b.name): needs 0 < low < high Hz"
        }
        if vibration.idleBelow > vibration.runningAbove { return "vibration: idle_below must not exceed running_above" }
        if !(vibration.window > 0) { return "vibration.window: must be > 0 s" }
        if !(shock.threshold > 1) { return "shock.threshold: must be > 1 g (1 g is gravity at rest)" }
        if !(freeFall.threshold > 0 && freeFall.threshold < 1) { return "free_fall.threshold: must be between 0 and 1 g" }
        if !(tap.threshold > 0) { return "tap.threshold: must be > 0 g" }
        if ![50.0, 60, 70, 80].contains(orientation.threshold) { return "orientation.threshold: must be 50, 60, 70 or 80 degrees" }
        if !(orientation.dwell >= 0) { return "orientation.dwell: must be ≥ 0 s" }
        return nil
    }
}
