#if canImport(Glibc)
import Glibc
#endif

/// Core Motion's `CMPedometer`: counts steps from the accelerometer, with cadence, pace, distance,
/// floors (when pressure samples are fed) and pause/resume events.
///
/// Steps: |f| (orientation-free) is resampled to `internalRate`, band-passed (`lowCutoff`–`highCutoff`,
/// two biquads) and each positive peak that reaches an adaptive threshold (a fraction of the recent
/// peak amplitude, never below `minimumPeak`) after the signal went below zero, at least
/// `minimumStepInterval` after the previous one, is a step candidate; during a walk a peak sooner
/// than `secondBumpFraction` of the walk's step period after the last step (nearer to it than to
/// the next) is a second bump of that step and is skipped, unless its interval repeats the one a
/// stride earlier (within `regularity`: the short step of an asymmetric gait); and, while the last
/// two intervals agree within `regularity`, a peak within `expectedStepTolerance` of one step period
/// after the last step needs only `expectedStepFraction` of the threshold (a gentle step where the
/// walk's rhythm puts the next one). A walk is confirmed after
/// `confirmationSteps` regular candidates spaced at most `maximumStepInterval` apart (each interval
/// within `regularity` of the previous one or of the one before it: left and right steps of a
/// pocket or a swinging hand often differ, the stride does not); those are counted retroactively
/// (so jostles and single knocks are not steps) and a `resume` event is reported; `pauseAfter` seconds without a step end the walk with a `pause` event.
///
/// Low-rate source: while the source rate, measured over each second of input, is below
/// `lowRateBelow` (a 10 Hz low-power mode: a heel strike is caught whole, in part or not at all),
/// `lowRate` applies: a lower relative threshold, a limit on how far one peak raises the
/// amplitude, and two step periods between steps of a walk count as two steps (`usesLowRateRules`).
///
/// Distance and pace: each counted step adds `PedometerConfiguration.stepLength(cadence:)` at the
/// cadence of that moment; `currentPace` = 1 / (cadence × step length), `averageActivePace` =
/// walking time / distance. Value type, no allocation.
///
/// Gait gate: hand gestures, tapping and jostling can be as regular as steps. Once `setGait(_:)`
/// has been called (the agent feeds it the activity detector's walking/running state), steps are
/// counted only while the gate is open: the steps of a walk confirmed while it is closed are held
/// (at most the last `gateHoldTime` s of them) and counted when the detector confirms walking or
/// running — so the first steps of a walk are not lost to the detector's delay — or dropped when
/// the walk pauses first.
public struct Pedometer: Sendable {
    public let configuration: PedometerConfiguration
    private var resampler: ActivityResampler
    private var highPass: Biquad
    private var lowPass: Biquad
    private var primed = false
    private var y1 = 0.0, y2 = 0.0
    private var t1 = 0.0
    private var armed = false
    private var amplitude = 0.0
    private var lastCandidate = -Double.infinity
    private var lastCandidatePrevious = -Double.infinity
    private var lastInterval = 0.0
    private var intervalBefore = 0.0
    private var pending = 0
    private var firstPending = 0.0
    private var walking = false
    private var cadence = 0.0
    /// Mean step interval of the walk, s (EMA of the intervals; not 1 / cadence, whose EMA of
    /// 1 / interval leans towards the short intervals when bumps split steps).
    private var period = 0.0
    private var activeTime = 0.0
    private var startDate: Double?
    private var endDate = 0.0
    private var steps = 0
    private var distance = 0.0
    // Floors.
    private var altitude: Double?
    private var floorReference = 0.0
    private var lastPressureTime = 0.0
    private var ascended = 0, descended = 0
    private var hasPressure = false
    // Gait gate.
    private var gated = false
    private var gaitOpen = false
    /// The gate is closed and the detector says `unknown`: held steps are not trimmed to
    /// `gateHoldTime` (the detector is not late, it is unsure; a pause still drops them).
    private var gateUnsure = false
    /// A walk was reported (`resume`) and has not paused.
    private var reported = false
    private var held = 0
    private var heldStart = 0.0
    private var heldActive = 0.0
    private var heldDistance = 0.0
    /// The source's own rate over each second of internal time.
    private var rateMeter = SourceRateMeter()
    /// Whether the step detector uses `PedometerConfiguration.lowRate` (the source rate measured
    /// over the last second of input was below `lowRateBelow`).
    public private(set) var usesLowRateRules = false

    public init(configuration: PedometerConfiguration = PedometerConfiguration()) {
        self.configuration = configuration
        resampler = ActivityResampler(rate: configuration.internalRate, maximumGap: 1.0)
        highPass = .highPass(cutoff: configuration.lowCutoff, rate: configuration.internalRate)
        lowPass = .lowPass(cutoff: configuration.highCutoff, rate: configuration.internalRate)
    }

    /// Totals and current rates, as `CMPedometerData`.
    /// Cadence and current pace are 0 unless steps are being counted: after a pause, and while the
    /// gait gate is closed (cycling, a vehicle, gestures), even if the step detector still sees a rhythm.
    public var data: PedometerData {
        let currentCadence = isWalking ? cadence : 0
        return PedometerData(
            startDate: startDate ?? 0, endDate: endDate, numberOfSteps: steps, distance: distance,
            floorsAscended: hasPressure ? ascended : nil, floorsDescended: hasPressure ? descended : nil,
            currentPace: currentCadence > 0 ? 1 / (currentCadence * configuration.stepLength(cadence: currentCadence)) : 0,
            currentCadence: currentCadence,
            averageActivePace: distance > 0 && activeTime > 0 ? activeTime / distance : 0)
    }

    /// Whether steps are being counted now: a walk is confirmed, not paused, and the gait gate
    /// (when used) is open.
    public var isWalking: Bool { reported && (!gated || gaitOpen) }

    /// Steps held while the gait gate is closed (counted if walking or running is confirmed).
    public var heldSteps: Int { held }

    /// Opens (`true`: the activity detector reports walking or running) or closes the gait gate;
    /// the first call turns gating on. Opening it counts the held steps of the current walk and
    /// returns its `resume` event (dated at the first held step) when the walk was not yet reported.
    public mutating func setGait(_ active: Bool) -> PedometerEvent? {
        gated = true
        gateUnsure = false
        guard active != gaitOpen else { return nil }
        gaitOpen = active
        guard active, walking, held > 0 else { return nil }
        steps += held
        activeTime += heldActive
        distance += heldDistance
        held = 0
        heldActive = 0
        heldDistance = 0
        guard !reported else { return nil }
        reported = true
        return PedometerEvent(kind: .resume, date: heldStart)
    }

    /// Turns the gait gate on before the activity detector has decided anything (the agent, the
    /// library and `edgemotion steps` call it once, at start): closed, and unsure as under
    /// `unknown`, so the steps of a walk the detector takes long to settle on (its first
    /// decision comes after at least one window and `enterDecisions`, later when the first
    /// seconds are ambiguous) are all held, not only the last `gateHoldTime` s, until its first
    /// state opens the gate (counted) or the steps pause (dropped).
    public mutating func startGating() {
        _ = setGait(false)
        gateUnsure = true
    }

    /// The gait gate as the activity detector's state sets it (the one policy the agent, the
    /// library and `edgemotion steps` share): walking or running opens it; stationary, cycling
    /// and automotive close it; `unknown` alone (motion that is none of the classes, e.g. a brisk
    /// walk the model cannot place, or a sport) leaves it as it is, so the steps of a walk the
    /// detector is unsure of are neither counted as gestures nor dropped: they stay counted when
    /// the gate was open, held when it was closed — all of them, not only the last `gateHoldTime`
    /// s, until walking or running is confirmed (counted) or the steps pause (dropped).
    public mutating func setGait(for activity: MotionActivity) -> PedometerEvent? {
        if activity.walking || activity.running { return setGait(true) }
        if activity.primary == .unknown {
            gated = true
            gateUnsure = !gaitOpen
            return nil
        }
        return setGait(false)
    }

    /// Counts `n` steps (the first at `first`, spanning `duration` s) now, or holds them while the
    /// gait gate is closed. Returns whether they were counted.
    private mutating func credit(_ n: Int, first: Double, duration: Double, at t: Double) -> Bool {
        let length = Double(n) * configuration.stepLength(cadence: cadence)
        if !gated || gaitOpen {
            steps += n
            activeTime += duration
            distance += length
            return true
        }
        if held == 0 { heldStart = first }
        held += n
        heldActive += duration
        heldDistance += length
        let span = t - heldStart
        let limit = configuration.gateHoldTime
        if span > limit && !gateUnsure {
            // Keep only (about) the steps of the last `limit` seconds, at the walk's mean rate.
            let keep = (Double(held) * limit / span).rounded()
            heldActive *= keep / Double(held)
            heldDistance *= keep / Double(held)
            held = Int(keep)
            heldStart = t - limit
        }
        return false
    }

    /// Feeds one accelerometer sample: time in s, specific force in m/s² (any frame). Returns a
    /// pause or resume event when one happened.
    public mutating func update(time: Double, specificForce: Vector3) -> PedometerEvent? {
        if startDate == nil { startDate = time }
        endDate = Swift.max(endDate, time)
        var event: PedometerEvent?
        rateMeter.count()
        var r = resampler
        r.add(time: time, specificForce: specificForce, rotationRate: nil) { s in
            if s.afterGap { rateMeter.restart() }
            measureSourceRate(at: s.time)
            if let e = internalSample(time: s.time, magnitude: s.specificForce.norm) { event = e }
        }
        resampler = r
        return event
    }

    /// Once a second of internal time: the source rate over it decides `usesLowRateRules` (an
    /// interpolated-up slow source must not pass for the internal rate).
    private mutating func measureSourceRate(at t: Double) {
        rateMeter.start(at: t)
        guard rateMeter.elapsed(at: t) >= 1 else { return }
        usesLowRateRules = rateMeter.take(at: t) < configuration.lowRateBelow
    }

    private mutating func internalSample(time t: Double, magnitude m: Double) -> PedometerEvent? {
        let c = configuration
        if !primed {
            highPass.prime(m)
            lowPass.prime(0)
            primed = true
        }
        let y = lowPass(highPass(m))
        var event: PedometerEvent?
        if y < 0 { armed = true }
        // y1 is a local maximum: a peak at t1.
        if y1 > y2, y1 >= y, armed, t1 - lastCandidate >= c.minimumStepInterval {
            let relative = usesLowRateRules ? c.lowRate.relativeThreshold : c.relativeThreshold
            let threshold = Swift.max(c.minimumPeak, relative * amplitude)
            let interval = t1 - lastCandidate
            var accept = false
            if y1 >= threshold {
                if walking, interval < c.secondBumpFraction * period,
                   abs(interval - intervalBefore) > c.regularity * intervalBefore {
                    // Nearer the last step than the next one, and not the short step of an
                    // asymmetric gait (which repeats one stride later): a second bump of this step.
                    armed = false
                } else {
                    accept = true
                }
            } else if walking, abs(interval - period) <= c.expectedStepTolerance * period,
                      abs(lastInterval - intervalBefore) <= c.regularity * intervalBefore,
                      y1 >= c.expectedStepFraction * threshold {
                // A gentle step just where an even rhythm (the last two intervals alike, so not an
                // asymmetric gait, whose long interval holds ringing there) puts the next one.
                accept = true
            }
            if accept {
                event = candidate(at: t1)
                let limit = usesLowRateRules ? c.lowRate.amplitudeStepLimit : 0
                let size = limit > 0 && amplitude > 0 ? Swift.min(y1, limit * amplitude) : y1
                amplitude = amplitude == 0 ? y1 : 0.8 * amplitude + 0.2 * size
                armed = false
            }
        }
        y2 = y1; y1 = y; t1 = t
        if walking, t - lastCandidate > c.pauseAfter {
            walking = false
            pending = 0
            held = 0
            heldActive = 0
            heldDistance = 0
            if reported {
                reported = false
                event = PedometerEvent(kind: .pause, date: lastCandidate)
            }
        }
        // Forget the amplitude slowly when nothing happens so a gentler walk can start again.
        if t - lastCandidate > c.maximumStepInterval { amplitude *= 0.995 }
        return event
    }

    /// Shifts `interval` (s) into the last two intervals and the cadence and period averages;
    /// `restart`: the first interval of a new run of candidates, which sets both averages.
    private mutating func remember(_ interval: Double, restart: Bool) {
        intervalBefore = lastInterval
        lastInterval = interval
        cadence = restart ? 1 / interval : 0.7 * cadence + 0.3 / interval
        period = restart ? interval : 0.7 * period + 0.3 * interval
    }

    private mutating func candidate(at t: Double) -> PedometerEvent? {
        let c = configuration
        let interval = t - lastCandidate
        lastCandidatePrevious = lastCandidate
        lastCandidate = t
        guard interval <= c.maximumStepInterval else {
            pending = 1
            firstPending = t
            return nil
        }
        let missed = c.lowRate.missedStepTolerance
        if walking, usesLowRateRules, missed > 0, abs(interval - 2 * period) <= missed * period {
            // Two step periods since the last step at a low source rate: the step between them
            // fell between samples.
            remember(interval / 2, restart: false)
            remember(interval / 2, restart: false)
            _ = credit(2, first: t - interval / 2, duration: interval, at: t)
            return nil
        }
        if walking {
            remember(interval, restart: false)
            _ = credit(1, first: t, duration: interval, at: t)
            return nil
        }
        // Before a walk is confirmed its steps must be regular: each interval within
        // `regularity` of the previous one or of the one before it (left and right steps may
        // differ, strides do not), else the candidates restart from the previous step.
        let r = c.regularity
        let regular = pending < 2 || abs(interval - lastInterval) <= r * lastInterval
            || pending >= 3 && abs(interval - intervalBefore) <= r * intervalBefore
        if !regular {
            pending = 1
            firstPending = lastCandidatePrevious
        }
        pending += 1
        remember(interval, restart: pending == 2)
        guard pending >= c.confirmationSteps else { return nil }
        walking = true
        let counted = credit(pending, first: firstPending, duration: t - firstPending, at: t)
        pending = 0
        guard counted else { return nil }
        reported = true
        return PedometerEvent(kind: .resume, date: firstPending)
    }

    /// Feeds one barometer sample: pressure in hPa. Floors are counted only while walking (stairs,
    /// not lifts); otherwise the reference follows the altitude.
    public mutating func update(time: Double, pressure hPa: Double) {
        guard hPa > 0, hPa.isFinite else { return }
        hasPressure = true
        // International barometric formula, m above the 1013.25 hPa level.
        let h = 44330 * (1 - Glibc.pow(hPa / 1013.25, 1 / 5.255))
        guard let previous = altitude else {
            altitude = h
            floorReference = h
            lastPressureTime = time
            return
        }
        let dt = Swift.max(0, Swift.min(1, time - lastPressureTime))
        lastPressureTime = time
        let alpha = dt / (1.0 + dt)  // ~1 s smoothing
        let smoothed = previous + alpha * (h - previous)
        altitude = smoothed
        let stepping = reported || time - lastCandidate < 5 && (!gated || gaitOpen)
        if !stepping {
            floorReference = smoothed
            return
        }
        let floor = configuration.floorHeight
        while smoothed - floorReference >= floor {
            ascended += 1
            floorReference += floor
        }
        while floorReference - smoothed >= floor {
            descended += 1
            floorReference -= floor
        }
    }

    /// Restarts the counts at `time` (keeps the configuration).
    public mutating func reset() {
        self = Pedometer(configuration: configuration)
    }
}
