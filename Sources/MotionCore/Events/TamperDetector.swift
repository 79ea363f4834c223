/// Settings of `TamperDetector`.
public struct TamperConfiguration: Sendable, Equatable, BitwiseCopyable {
    /// Degrees of tilt from the pose at arming that count as tampering.
    public var tiltThreshold = 5.0
    /// Whether any motion (the any-motion detector's `motion`) counts, not only a tilt change.
    public var motionCounts = true
    public init() {}
}

/// Tamper: while armed (by a command), motion or a tilt change beyond `tiltThreshold` degrees
/// from the pose at arming is a `tamper` event — one per episode: it re-arms itself once the
/// device is stationary again (it stays armed until disarmed).
public struct TamperDetector: Sendable, BitwiseCopyable {
    public var configuration: TamperConfiguration
    public private(set) var isArmed = false
    private var reference = Vector3.zero
    private var latched = false

    public init(configuration: TamperConfiguration = TamperConfiguration()) {
        self.configuration = configuration
    }

    /// Arms with the current up-vector (sensor frame) as the reference pose.
    /// Motion already under way when arming does not count: the detector waits for it to end.
    public mutating func arm(up: Vector3) {
        isArmed = true
        reference = up.normalized
        latched = true
    }

    public mutating func disarm() {
        isArmed = false
        latched = false
    }

    /// `up`: unit up-vector, sensor frame; `moving`: the any-motion state.
    public mutating func update(up: Vector3, moving: Bool, time: Double, emit: (MotionEvent) -> Void) {
        guard isArmed else { return }
        if reference == .zero { reference = up }
        let angle = up.dot(reference).acos.degrees
        let tampered = angle > configuration.tiltThreshold || (configuration.motionCounts && moving)
        if tampered, !latched {
            latched = true
            var e = MotionEvent(type: .tamper, time: time, onset: time)
            e.angle = angle
            emit(e)
        } else if !tampered, latched, !moving {
            latched = false
        }
    }
}
