/// Settings of `FreeFallDetector`.
public struct FreeFallConfiguration: Sendable, Equatable, BitwiseCopyable {
    /// g: in free fall an accelerometer reads ~0; below this the device is falling (LSM6DSOX's
    /// free-fall thresholds are 0.16–0.5 g; 0.3 g allows for some tumbling and air drag).
    public var threshold = 0.3
    /// Seconds the reading must stay below before it counts: 0.2 s is a 20 cm drop. Shaking a
    /// device up and down faster than gravity unloads it for up to ~0.15 s; a drop worth
    /// reporting (off a table: 0.75 m, 0.39 s) is longer.
    public var minimumDuration = 0.2
    public init() {}
}

/// Free fall: specific-force magnitude below `threshold` g for at least `minimumDuration` s.
/// One event when the fall ends (the first sample back above the threshold, normally the
/// impact), with `duration` t (s) and the implied drop height h = g·t²/2 in m (from rest,
/// without drag: 0.35 s is 0.60 m). Input: specific force in m/s², any frame.
public struct FreeFallDetector: Sendable, BitwiseCopyable {
    public var configuration: FreeFallConfiguration
    private var onset = Double.nan

    public init(configuration: FreeFallConfiguration = FreeFallConfiguration()) {
        self.configuration = configuration
    }

    /// Whether the device is falling now (below the threshold, however briefly).
    public var isFalling: Bool { !onset.isNaN }

    public mutating func update(specificForce f: Vector3, time: Double, emit: (MotionEvent) -> Void) {
        let g = f.norm / standardGravity
        if g < configuration.threshold {
            if onset.isNaN { onset = time }
            return
        }
        guard !onset.isNaN else { return }
        let t = time - onset
        onset = .nan
        guard t >= configuration.minimumDuration - 1e-9 else { return }
        var e = MotionEvent(type: .freeFall, time: time, onset: time - t)
        e.duration = t
        e.dropHeight = standardGravity * t * t / 2
        emit(e)
    }
}
