/// Every motion-event detector of one device, run together on each sample: the value the
/// pipeline consumer, the CLI and tests own. No allocation per sample; events go to the
/// caller's closure as they are decided.
///
/// Input per sample: sample time (s), specific force (m/s², sensor frame, +9.81 up at rest) and
/// optional rotation rate (rad/s, sensor frame). `sampleRate` (Hz) designs the filters.
public struct MotionEventDetectors: Sendable {
    public let configuration: MotionEventConfiguration
    public let sampleRate: Double
    public private(set) var tilt: TiltDetector
    public private(set) var motion: AnyMotionDetector
    public private(set) var shock: ShockDetector
    public private(set) var freeFall: FreeFallDetector
    public private(set) var tap: TapDetector
    public private(set) var tamper: TamperDetector
    public private(set) var fall: FallDetector
    public private(set) var vibration: VibrationAnalyzer
    /// The 6D orientation (run only when `orientation` is enabled).
    public private(set) var orientation: OrientationDetector
    /// `motion` from the chip's engine (used when `configuration.chipMotion`).
    public private(set) var chipMotion: ChipMotionGate
    /// `free_fall` from the chip's engine (used when `configuration.chipFreeFall`).
    public private(set) var chipFreeFall: ChipFreeFallGate
    /// `tap` and `double_tap` from the chip's engine (used when `configuration.chipTap`).
    public let chipTap = ChipTapGate()
    /// `orientation` from the chip's 6D engine (used when `configuration.chipOrientation`).
    public private(set) var chipOrientation: ChipOrientationGate
    private let enabled: UInt32

    public init(configuration: MotionEventConfiguration = MotionEventConfiguration(), sampleRate: Double) {
        self.configuration = configuration
        self.sampleRate = sampleRate
        tilt = TiltDetector(thresholds: configuration.tiltThresholds, sampleRate: sampleRate, cutoff: configuration.tiltCutoff)
        motion = AnyMotionDetector(configuration: configuration.anyMotion)
        shock = ShockDetector(configuration: configuration.shock)
        freeFall = FreeFallDetector(configuration: configuration.freeFall)
        tap = TapDetector(configuration: configuration.tap, sampleRate: sampleRate)
        tamper = TamperDetector(configuration: configuration.tamper)
        fall = FallDetector(configuration: configuration.fall)
        vibration = VibrationAnalyzer(configuration: configuration.vibration, sampleRate: sampleRate)
        orientation = OrientationDetector(configuration: configuration.orientation, sampleRate: sampleRate, cutoff: configuration.tiltCutoff)
        chipMotion = ChipMotionGate(quietDuration: configuration.anyMotion.stationaryDuration)
        chipFreeFall = ChipFreeFallGate(minimumDuration: configuration.freeFall.minimumDuration)
        chipOrientation = ChipOrientationGate(dwell: configuration.orientation.dwell)
        var mask: UInt32 = 0
        for t in configuration.enabled { mask |= 1 << t.rawValue }
        enabled = mask
    }

    /// Whether `type` is reported.
    public func isEnabled(_ type: MotionEventType) -> Bool { enabled & (1 << type.rawValue) != 0 }

    /// Runs every detector on one sample; returns `true` when a vibration window ended
    /// (`vibration.latest` is new). `chipFlags`: the sample's chip event flags
    /// (`IMUSample.Flags.chipMotion`, `.chipFreeFall`, `.chipTap`, `.chipDoubleTap`,
    /// `.chipOrientation` with its `chipFace`), each looked at only when the configuration lets the
    /// chip decide that event (`chipMotion`, `chipFreeFall`, `chipTap`, `chipOrientation`); the software detector of such an event still runs, its own
    /// events withheld.
    @discardableResult
    public mutating func update(time: Double, specificForce f: Vector3, rotationRate w: Vector3?,
                                chipFlags: IMUSample.Flags = [], emit: (MotionEvent) -> Void) -> Bool {
        let mask = enabled
        let chipDecidesMotion = configuration.chipMotion
        let chipDecidesFreeFall = configuration.chipFreeFall
        let chipDecidesTap = configuration.chipTap
        let chipDecidesOrientation = configuration.chipOrientation
        // A nested function, not a closure value: passed on non-escaping, it needs no context
        // allocation. With a chip engine on, the software events of its type are withheld (the chip's are sent).
        func filtered(_ e: MotionEvent) {
            guard mask & (1 << e.type.rawValue) != 0 else { return }
            if !e.fromChip {
                switch e.type {
                case .motion where chipDecidesMotion, .freeFall where chipDecidesFreeFall,
                     .tap where chipDecidesTap, .doubleTap where chipDecidesTap,
                     .orientation where chipDecidesOrientation: return
                default: break
                }
            }
            emit(e)
        }
        tilt.update(specificForce: f, time: time, emit: filtered)
        motion.update(specificForce: f, rotationRate: w, time: time, emit: filtered)
        if chipDecidesMotion { chipMotion.update(flagged: chipFlags.contains(.chipMotion), time: time, emit: filtered) }
        if chipDecidesFreeFall { chipFreeFall.update(flagged: chipFlags.contains(.chipFreeFall), time: time, emit: filtered) }
        if chipDecidesTap {
            chipTap.update(tap: chipFlags.contains(.chipTap), doubleTap: chipFlags.contains(.chipDoubleTap), time: time, emit: filtered)
        }
        shock.update(specificForce: f, time: time, emit: filtered)
        freeFall.update(specificForce: f, time: time, emit: filtered)
        tap.update(specificForce: f, time: time, emit: filtered)
        tamper.update(up: tilt.up, moving: motion.isMoving, time: time, emit: filtered)
        if mask & (1 << MotionEventType.fall.rawValue) != 0 {
            fall.update(specificForce: f, up: tilt.up, lastMoving: motion.lastMovingTime, time: time, emit: filtered)
        }
        if mask & (1 << MotionEventType.orientation.rawValue) != 0 {
            orientation.update(specificForce: f, time: time, emit: filtered)
            if chipDecidesOrientation { chipOrientation.update(reported: chipFlags.chipFace, time: time, emit: filtered) }
        }
        return vibration.update(specificForce: f, time: time, emit: filtered)
    }

    /// "Set level": the current pose becomes the zero of tilt, roll and pitch. Returns the
    /// zero up-vector (sensor frame) to persist.
    @discardableResult
    public mutating func setZero() -> Vector3 { tilt.setZero() }

    /// Restores a persisted zero up-vector (sensor frame).
    public mutating func setZero(_ up: Vector3) { tilt.setZero(up) }

    /// Arms tamper detection at the current pose.
    public mutating func armTamper() { tamper.arm(up: tilt.up) }
    public mutating func disarmTamper() { tamper.disarm() }

    /// Restores the tilt thresholds' states (configuration order) without events.
    public mutating func restoreThresholds(_ states: [Bool]) { tilt.restore(states: states) }

    /// The states of the tilt thresholds, in configuration order.
    public func thresholdStates(into body: (Int, Bool) -> Void) {
        for (i, s) in tilt.thresholds.enumerated() { body(i, s.isOn) }
    }
}
