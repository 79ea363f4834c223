/// Settings of `TapDetector`.
public struct TapConfiguration: Sendable, Equatable, BitwiseCopyable {
    /// g: the high-passed acceleration magnitude a tap must exceed. A tap is a collision: a
    /// finger (~10 g at 0.3 m/s) stopped in ~2 ms pushes with ~1.5 N, which accelerates a
    /// 50 g board by ~3 g; a tool or knuckle gives more (BROAD's tapped IMU: 5–17 g). Hand
    /// and body motion above `highPassCutoff` stay well under 1 g.
    public var threshold = 2.0
    /// Hz: the high-pass that removes gravity and hand or body motion (which live below ~10 Hz).
    public var highPassCutoff = 15.0
    /// Seconds after the onset within which the impulse and its ringing must have decayed
    /// below `quietLevel`·threshold: a struck board rings for 0.05–0.25 s; shaking, a step
    /// on a table or a running machine stays loud longer.
    public var maximumDuration = 0.25
    /// Seconds that must be quiet before the impulse: taps stand out from stillness or smooth
    /// motion, not from shaking or vibration.
    public var quietBefore = 0.1
    /// Seconds that must be quiet after it (the chips' "quiet time") before it is reported.
    public var quietAfter = 0.05
    /// g: during `quietBefore` the device must be supported — its specific force (smoothed over
    /// ~20 ms) within this of 1 g. A falling or toppling device (a drop, a person's fall) hits
    /// the ground with an impulse that looks like a tap but is not one.
    public var supportTolerance = 0.3
    /// Fraction of `threshold` below which the signal counts as quiet.
    public var quietLevel = 0.5
    /// Seconds between the onsets of two taps for a double tap.
    public var doubleTapMinimumGap = 0.1
    public var doubleTapMaximumGap = 0.6
    /// Hz: below this sample rate taps cannot be seen (an impulse is 1–2 samples); disabled.
    public var minimumSampleRate = 100.0
    public init() {}
}

/// Tap and double tap: an isolated, short, high-frequency impulse.
///
/// The specific force (m/s², sensor frame) is high-passed per axis (fourth-order
/// Butterworth at `highPassCutoff`); its magnitude h (g) must cross `threshold` after
/// `quietBefore` s of quiet (under `quietLevel`·threshold) while supported (|f| ≈ 1 g), ring down below that level within
/// `maximumDuration` s of its onset (the first sample above the quiet level), and stay there for `quietAfter` s. Each tap is reported (`tap`, `peak` = max h in g); a tap whose onset follows
/// the previous tap's by `doubleTapMinimumGap`…`doubleTapMaximumGap` s is also a `double_tap`.
public struct TapDetector: Sendable {
    public let configuration: TapConfiguration
    /// Whether the sample rate allows tap detection.
    public let isAvailable: Bool
    private var hx1: Biquad, hy1: Biquad, hz1: Biquad, hx2: Biquad, hy2: Biquad, hz2: Biquad
    private var primed = false
    private var lastLoud = -Double.infinity
    private var lastUnsupported = -Double.infinity
    private var load = 1.0
    private var lastTime = Double.nan
    private var onset = Double.nan
    /// The current run of loud samples (h above the quiet level): when it began, and whether the
    /// time before it was quiet and supported, so that it may become a tap.
    private var inLoudRun = false
    private var runStart = Double.nan
    private var runEligible = false
    private var peak = 0.0
    private var rejected = false
    private var lastTapOnset = -Double.infinity
    private var lastWasDouble = false

    public init(configuration: TapConfiguration = TapConfiguration(), sampleRate: Double) {
        self.configuration = configuration
        isAvailable = sampleRate >= configuration.minimumSampleRate
        let c = Swift.min(configuration.highPassCutoff, 0.4 * sampleRate)
        let q = Biquad.fourthOrderButterworthQ
        hx1 = .highPass(cutoff: c, rate: sampleRate, q: q.0)
        hy1 = hx1; hz1 = hx1
        hx2 = .highPass(cutoff: c, rate: sampleRate, q: q.1)
        hy2 = hx2; hz2 = hx2
    }

    public mutating func update(specificForce f: Vector3, time: Double, emit: (MotionEvent) -> Void) {
        guard isAvailable else { return }
        if !primed {
            hx1.prime(f.x); hy1.prime(f.y); hz1.prime(f.z)
            primed = true
        }
        let h = Vector3(hx2(hx1(f.x)), hy2(hy1(f.y)), hz2(hz1(f.z))).norm / standardGravity
        let c = configuration
        let dt = lastTime.isNaN ? 0 : Swift.max(0, Swift.min(time - lastTime, 1))
        lastTime = time
        let quietBelow = c.quietLevel * c.threshold
        let loud = h > quietBelow
        if onset.isNaN {
            if loud {
                // The quiet (and support) before an impulse is judged where its loud run begins,
                // not at the sample that crosses `threshold`: a tap that rises over two samples
                // (the first between the quiet level and the threshold) is still a tap.
                if !inLoudRun {
                    inLoudRun = true
                    runStart = time
                    runEligible = !rejected && time - lastLoud >= c.quietBefore && time - lastUnsupported >= c.quietBefore
                }
                if h > c.threshold, runEligible {
                    onset = runStart
                    peak = h
                }
                lastLoud = time
            } else {
                inLoudRun = false
            }
            load += (f.norm / standardGravity - load) * (dt / (0.02 + dt))
            if abs(load - 1) > c.supportTolerance { lastUnsupported = time }
            if rejected, time - lastLoud >= c.quietBefore { rejected = false }
            return
        }
        peak = Swift.max(peak, h)
        if loud {
            lastLoud = time
            if time - onset > c.maximumDuration {
                onset = .nan
                rejected = true
            }
            return
        }
        guard time - lastLoud >= c.quietAfter else { return }
        var e = MotionEvent(type: .tap, time: time, onset: onset)
        e.peak = peak
        emit(e)
        let gap = onset - lastTapOnset
        if !lastWasDouble, gap >= c.doubleTapMinimumGap, gap <= c.doubleTapMaximumGap {
            var d = MotionEvent(type: .doubleTap, time: time, onset: lastTapOnset)
            d.peak = peak
            d.duration = gap
            emit(d)
            lastWasDouble = true
        } else {
            lastWasDouble = false
        }
        lastTapOnset = onset
        onset = .nan
        inLoudRun = false
    }
}
