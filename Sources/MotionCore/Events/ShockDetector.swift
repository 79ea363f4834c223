/// Settings of `ShockDetector`.
public struct ShockConfiguration: Sendable, Equatable, BitwiseCopyable {
    /// g: an impact is specific-force magnitude above this. Walking stays under ~2 g at the
    /// body, running under ~3 g at the chest; a jump's landing or a dropped box passes 3 g.
    public var threshold = 3.0
    /// Seconds below the threshold that end one shock (ringing within it is the same shock).
    public var holdoff = 0.05
    public init() {}
}

/// Shock / impact: |f| / g above `threshold` g. One event per impact, when it has ended, with
/// its peak (g) and duration (s, first to last sample above the threshold, plus one sample
/// period). Input: specific force in m/s², any frame (only the magnitude is used).
public struct ShockDetector: Sendable, BitwiseCopyable {
    public var configuration: ShockConfiguration
    private var onset = Double.nan
    private var lastAbove = 0.0
    private var peak = 0.0
    private var lastTime = Double.nan
    private var period = 0.0

    public init(configuration: ShockConfiguration = ShockConfiguration()) {
        self.configuration = configuration
    }

    public mutating func update(specificForce f: Vector3, time: Double, emit: (MotionEvent) -> Void) {
        if !lastTime.isNaN, time > lastTime { period = time - lastTime }
        lastTime = time
        let g = f.norm / standardGravity
        if g > configuration.threshold {
            if onset.isNaN {
                onset = time
                peak = 0
            }
            lastAbove = time
            peak = Swift.max(peak, g)
        } else if !onset.isNaN, time - lastAbove >= configuration.holdoff {
            var e = MotionEvent(type: .shock, time: time, onset: onset)
            e.peak = peak
            e.duration = lastAbove - onset + period
            emit(e)
            onset = .nan
        }
    }
}
