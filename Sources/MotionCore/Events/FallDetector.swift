/// Settings of `FallDetector`.
public struct FallConfiguration: Sendable, Equatable, BitwiseCopyable {
    /// g: the impact of a person hitting the ground (studies put body-worn peaks at 2–6 g; daily
    /// activities other than jumps rarely pass 2.5 g at the trunk).
    public var impactThreshold = 2.5
    /// Degrees the body's up-axis must have turned from before the impact (upright → lying).
    public var orientationChange = 50.0
    /// Seconds lying still (no moving sample) that confirm the fall.
    public var stillDuration = 3.0
    /// Seconds after the impact within which the stillness must come.
    public var confirmWindow = 15.0
    public init() {}
}

/// Fall detection for people, in the manner of Core Motion's `CMFallDetectionManager`: an impact
/// above `impactThreshold` g, then within `confirmWindow` s the wearer lies still for
/// `stillDuration` s with the up-axis turned by `orientationChange` degrees from the pose before
/// the impact. **Advisory only**: it is not a medical device; it misses falls that end upright
/// or against a wall and can mistake dropping a worn device for a fall.
public struct FallDetector: Sendable, BitwiseCopyable {
    public var configuration: FallConfiguration
    private var slowUp = Vector3.zero
    private var reference = Vector3.zero
    private var impact = Double.nan
    private var peak = 0.0
    private var lastTime = Double.nan

    public init(configuration: FallConfiguration = FallConfiguration()) {
        self.configuration = configuration
    }

    /// `f`: specific force m/s²; `up`: unit up-vector (sensor frame); `lastMoving`: time of the
    /// any-motion detector's last moving sample.
    public mutating func update(specificForce f: Vector3, up: Vector3, lastMoving: Double, time: Double,
                                emit: (MotionEvent) -> Void) {
        let c = configuration
        let dt = lastTime.isNaN ? 0 : Swift.max(0, Swift.min(time - lastTime, 1))
        lastTime = time
        if slowUp == .zero { slowUp = up }
        let g = f.norm / standardGravity
        if impact.isNaN {
            // The pose before a fall: a 2 s average that the fall's own second barely moves.
            slowUp = (slowUp + (up - slowUp) * (dt / (2 + dt))).normalized
            if g > c.impactThreshold {
                impact = time
                peak = g
                reference = slowUp
            }
            return
        }
        peak = Swift.max(peak, g)
        if time - impact > c.confirmWindow {
            impact = .nan
            slowUp = up
            return
        }
        let angle = up.dot(reference).acos.degrees
        if time - lastMoving >= c.stillDuration, lastMoving >= impact, angle >= c.orientationChange {
            var e = MotionEvent(type: .fall, time: time, onset: impact)
            e.peak = peak
            e.angle = angle
            emit(e)
            impact = .nan
            slowUp = up
        }
    }
}
