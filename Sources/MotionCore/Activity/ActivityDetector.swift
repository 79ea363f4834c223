/// `CMMotionActivityManager`'s classifier: feed it samples, get a `MotionActivity` back only when
/// the activity changes.
///
/// Pipeline: `ActivityResampler` (any source rate → `internalRate`) → `ActivityFeatureExtractor`
/// (a `windowLength` window, features every `hop` samples) → `ActivityModel` (class probabilities)
/// → the open-set rule (a moving window whose best class has probability below
/// `unknownBelowProbability` is `unknown`) plus the hand-set vehicle rules (rotation, horizontal
/// motion) and cycling rules → `ActivityStateMachine` (votes, hysteresis, vehicle stops). Works
/// from raw specific force, with or without a gyroscope, or from fused `DeviceMotion`. Every buffer is allocated in `init`; `update` never allocates.
public final class ActivityDetector {
    /// What the detector decided at its latest decision window (for tools and diagnostics).
    @frozen
    public struct Decision: Sendable, BitwiseCopyable {
        /// End of the window, seconds of the sample clock.
        public var time: Double
        public var features: ActivityFeatures
        public var probabilities: ClassProbabilities
    }

    public let configuration: ActivityConfiguration
    /// The model for input at or above `configuration.lowRateModelBelow` Hz.
    public let model: ActivityModel
    /// The model for slower input (a low-power accelerometer mode: 10 Hz).
    public let lowRateModel: ActivityModel
    /// Whether the latest decision used `lowRateModel` (its hop's measured source rate was below
    /// `configuration.lowRateModelBelow`).
    public private(set) var usedLowRateModel = false
    private var resampler: ActivityResampler
    private let extractor: ActivityFeatureExtractor
    private let stateMachine: ActivityStateMachine
    private var sinceDecision = 0
    /// Decisions made so far (increments once per `hop` internal samples when the window is full).
    public private(set) var decisionCount = 0
    /// Why decisions are being withheld (input too slow, or without gravity), `nil` when the input
    /// is usable. Checked at every decision hop.
    public private(set) var inputProblem: ActivityInputProblem?
    /// Source samples skipped because their specific force was exactly (0, 0, 0) — not a reading:
    /// an accelerometer in a gravity field never reports that (at rest it reads ≈ 9.81 m/s²; in
    /// free fall its noise and offset still leave a few LSB on some axis), but a failed bus read, a
    /// FIFO underrun or a recorder's dropout fill does. Such a sample is left out as if it had not
    /// arrived: a run of them longer than `maximumGap` restarts the window like any gap.
    public private(set) var zeroReadingsSkipped = 0
    /// The source's own rate over each decision hop.
    private var rateMeter = SourceRateMeter()
    /// The latest decision; valid when `decisionCount > 0`.
    public private(set) var lastDecision = Decision(time: 0, features: ActivityFeatures(), probabilities: ClassProbabilities())

    /// `model` and `lowRateModel` default to the fitted parameters in `ActivityModelParameters.swift`;
    /// which one a decision uses follows the source rate measured over its hop
    /// (`configuration.lowRateModelBelow`). To use one model at every rate, pass it as both.
    public init(configuration: ActivityConfiguration = ActivityConfiguration(), model: ActivityModel = .fitted,
                lowRateModel: ActivityModel = .fittedLowRate) {
        precondition(configuration.validationError() == nil, configuration.validationError() ?? "")
        precondition(model.validationError() == nil, model.validationError() ?? "")
        precondition(lowRateModel.validationError() == nil, lowRateModel.validationError() ?? "")
        self.configuration = configuration
        self.model = model
        self.lowRateModel = lowRateModel
        resampler = ActivityResampler(rate: configuration.internalRate, maximumGap: configuration.maximumGap)
        extractor = ActivityFeatureExtractor(rate: configuration.internalRate, windowLength: configuration.windowLength)
        stateMachine = ActivityStateMachine(configuration: configuration)
    }

    /// The activity in force (with the latest confidence), or `nil` before the first one settles.
    public var currentActivity: MotionActivity? {
        guard var a = stateMachine.current else { return nil }
        a.confidence = stateMachine.confidence
        return a
    }

    /// Feeds one raw sample: `time` in seconds (monotonic), specific force in m/s² (sensor frame,
    /// +g up at rest), rotation rate in rad/s or `nil` without a gyroscope. Returns the new
    /// activity when it changed. A specific force of exactly (0, 0, 0) is a dropout, not a reading,
    /// and is skipped (`zeroReadingsSkipped`).
    public func update(time: Double, specificForce: Vector3, rotationRate: Vector3?) -> MotionActivity? {
        if specificForce == .zero {
            zeroReadingsSkipped &+= 1
            return nil
        }
        var changed: MotionActivity?
        rateMeter.count()
        resampler.add(time: time, specificForce: specificForce, rotationRate: rotationRate) { s in
            if let c = internalSample(s) { changed = c }
        }
        return changed
    }

    /// Feeds one `IMUSample` (its gyroscope is used when `contents` has one).
    public func update(_ sample: IMUSample) -> MotionActivity? {
        update(time: sample.timestamp, specificForce: sample.specificForce,
               rotationRate: sample.contents.contains(.gyroscope) ? sample.rotationRate : nil)
    }

    /// Feeds one fused `DeviceMotion` (gravity + user acceleration, bias-corrected rotation rate).
    public func update(_ motion: DeviceMotion, hasGyroscope: Bool = true) -> MotionActivity? {
        let g = motion.gravity, u = motion.userAcceleration
        let force = Vector3(g.x + u.x, g.y + u.y, g.z + u.z) * -standardGravity
        let w = motion.rotationRate
        return update(time: motion.timestamp, specificForce: force,
                      rotationRate: hasGyroscope ? Vector3(w.x, w.y, w.z) : nil)
    }

    /// Forgets the window and the state (a new recording or device).
    public func reset() {
        resampler = ActivityResampler(rate: configuration.internalRate, maximumGap: configuration.maximumGap)
        extractor.reset()
        stateMachine.reset()
        sinceDecision = 0
        rateMeter.restart()
        inputProblem = nil
        zeroReadingsSkipped = 0
    }

    private func internalSample(_ s: ActivityResampler.Output) -> MotionActivity? {
        if s.afterGap {
            extractor.reset()
            sinceDecision = 0
            rateMeter.restart()
        }
        extractor.append(specificForce: s.specificForce, rotationRate: s.hasRotationRate ? s.rotationRate : nil)
        sinceDecision += 1
        rateMeter.start(at: s.time)
        guard extractor.isFull, sinceDecision >= configuration.hop else { return nil }
        sinceDecision = 0
        // Source rate over the last hop: an interpolated-up slow source must not pass for 10 Hz.
        let sourceRate = rateMeter.take(at: s.time)
        let features = extractor.compute()
        if sourceRate < configuration.minimumInputRate {
            inputProblem = .rateTooLow(measured: sourceRate, required: configuration.minimumInputRate)
            return nil
        }
        if !configuration.gravityRange.contains(features.meanMagnitude) {
            inputProblem = .noGravity(meanMagnitude: features.meanMagnitude)
            return nil
        }
        inputProblem = nil
        usedLowRateModel = sourceRate < configuration.lowRateModelBelow
        var p = usedLowRateModel ? lowRateModel.probabilities(features) : model.probabilities(features)
        let c = configuration
        // Turning faster than a vehicle's cabin turns (gyroscope only).
        let turningLikeABody = c.vehicleMaximumGyroRMS > 0 && features.gyroscopeAvailable && features.gyroRMS >= c.vehicleMaximumGyroRMS
        // Rotating about a horizontal axis: pitching or rolling, which a cabin does not do (gyroscope only).
        let pitchingLikeABody = c.vehicleMinimumYawShare > 0 && features.gyroscopeAvailable
            && features.gyroTotalRMS >= c.vehicleYawShareMinimumRotation && features.gyroYawShare < c.vehicleMinimumYawShare
        // Moving mostly along gravity: a lift, a vibrating surface (the features are logs).
        let alongGravity = c.vehicleMinimumHorizontalRatio > 0
            && features.logHorizontalRMS - features.logVerticalStd < c.vehicleMinimumHorizontalRatio.log
        if turningLikeABody || pitchingLikeABody || alongGravity, stateMachine.current?.automotive != true {
            // Not a vehicle setting off; inside a trip none of these rules applies.
            p.exclude(.automotive)
        }
        let moving = features.logStdMagnitude >= (configuration.minimumGaitStd + 0.001).log
        let top = p.best.0
        if moving && top != .unknown && p[top] < configuration.unknownBelowProbability {
            // Open set: the model is not sure this motion is any class it knows.
            p = ClassProbabilities()
            p.unknown = 1
        }
        if !moving {
            // Too calm for a gait or for energetic unknown motion.
            p.stationary += p.walking + p.running + p.unknown
            p.walking = 0
            p.running = 0
            p.unknown = 0
        }
        if isWalkingStride(features) {
            // Repeating at a walking stride rate: not running, however hard the steps land.
            p.walking += p.running
            p.running = 0
        } else if isRunningCadence(features) {
            p.running += p.walking
            p.walking = 0
        }
        if let now = stateMachine.current, now.walking || now.running,
           features.logStdNewerHalf >= (configuration.gaitEndMaximumStd + 0.001).log {
            // Still moving as hard as a gait: the walk or run has not ended (irregular steps
            // look aperiodic, not stationary).
            if now.running { p.running += p.stationary } else { p.walking += p.stationary }
            p.stationary = 0
        }
        let pedalling = isPedalling(features)
        if pedalling {
            p.scale(by: 0.1)
            p.cycling = 0.9
        }
        decisionCount += 1
        lastDecision = Decision(time: s.time, features: features, probabilities: p)
        let turning = features.gyroscopeAvailable && features.gyroRMS >= configuration.cyclingMinimumGyroRMS
        let quietNow = features.logStdNewerHalf < (configuration.minimumGaitStd + 0.001).log && !turning && !pedalling
        if quietNow {
            // The last half window is quiet: no gait now, whatever the older half held.
            p.stationary += p.walking + p.running + p.cycling + p.unknown
            p.walking = 0
            p.running = 0
            p.cycling = 0
            p.unknown = 0
        } else if abs(features.halfEnergyLogRatio) > configuration.transitionLogRatio {
            return nil
        }
        // 0 at a clearly periodic gait (autocorrelation ≥ 0.5), 1 without one (≤ 0.3).
        let aperiodic = Swift.min(1, Swift.max(0, (0.5 - features.periodicity) / 0.2))
        return stateMachine.decide(time: s.time, probabilities: p, aperiodic: aperiodic)
    }

    /// Hand-set pedalling rule: a periodic rotation rate at pedal cadence with the device turning
    /// noticeably, |f| free of heel-strike impacts (see `cyclingMaximumKurtosis`), and |f| varying at
    /// that same cadence (or not periodically) rather than twice per leg swing as in walking and running.
    private func isPedalling(_ f: ActivityFeatures) -> Bool {
        let c = configuration
        if isSeatedPedalling(f) { return true }
        guard f.gyroscopeAvailable, f.gyroRMS >= c.cyclingMinimumGyroRMS, f.gyroPeriodicity >= c.cyclingGyroPeriodicity,
              c.cyclingCadenceRange.contains(f.gyroCadence), f.gyroCadence > 0 else { return false }
        if f.magnitudeKurtosis >= c.cyclingMaximumKurtosis,
           f.logStdMagnitude >= (c.cyclingImpactMinimumStd + 0.001).log { return false }
        return f.periodicity < c.gaitPeriodicity || c.cyclingCadenceRatio.contains(f.cadence / f.gyroCadence)
    }

    /// Pedalling seen from the torso: a clearly periodic, gentle rotation at pedal cadence with
    /// less |f| variation than any walk's bounce (`cyclingSeatedMaximumStd`).
    private func isSeatedPedalling(_ f: ActivityFeatures) -> Bool {
        let c = configuration
        return f.gyroscopeAvailable && f.gyroRMS >= c.cyclingSeatedMinimumGyroRMS
            && f.gyroPeriodicity >= c.cyclingSeatedGyroPeriodicity && f.gyroCadence > 0
            && c.cyclingCadenceRange.contains(f.gyroCadence)
            && f.logStdMagnitude < (c.cyclingSeatedMaximumStd + 0.001).log
    }

    /// A gait repeating more slowly than any run (`runningMinimumStrideRate`): the rotation rate's
    /// period when it is periodic (once a stride wherever the device sits), else that of |f|, which
    /// repeats once a step or once a stride — both slower than running's below the threshold.
    private func isWalkingStride(_ f: ActivityFeatures) -> Bool {
        let c = configuration
        guard c.runningMinimumStrideRate > 0 else { return false }
        if f.gyroscopeAvailable && f.gyroPeriodicity >= c.gaitPeriodicity && f.gyroCadence > 0 {
            return f.gyroCadence < c.runningMinimumStrideRate
        }
        return f.periodicity >= c.gaitPeriodicity && f.cadence > 0 && f.cadence < c.runningMinimumStrideRate
    }

    /// A periodic gait whose step rate only running reaches.
    private func isRunningCadence(_ f: ActivityFeatures) -> Bool {
        let c = configuration
        return f.periodicity >= c.gaitPeriodicity && f.cadence >= c.runningCadence
            && f.logStdMagnitude >= (c.runningMinimumStd + 0.001).log
    }
}
