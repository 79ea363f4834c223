/// The stream layer: turns one class-probability vector per decision window into a stable
/// `MotionActivity`, reported only when it changes.
///
/// - Votes: the mean probabilities of the last `voteDecisions` windows choose a candidate class;
///   the candidate must win `enterDecisions` consecutive decisions, and the current activity must
///   have lasted `minimumDwell`, before the activity changes (hysteresis + minimum dwell).
/// - Vehicle: `automotive` is entered only when its mean probability over the last
///   `vehicleVoteDecisions` windows reaches `vehicleEnterProbability` (until then its share of
///   each window's vote goes to stationary when the window has no gait, else to the other classes;
///   cars are long; hand-held
///   stationary devices look like a mounted phone for a few seconds). While automotive, a stationary
///   candidate sets the `stationary` flag too (stopped at a light) and only becomes plain
///   `stationary` after `vehicleStopTimeout`; walking or running end the trip at once.
/// - Start-up: before the first activity, while fewer than `vehicleVoteDecisions` windows exist and
///   their mean automotive probability is at least `vehicleEnterProbability`, nothing is reported (a
///   recording that starts in a car is not called stationary while the vote fills).
/// - `startDate` is backdated to the first window in which the new candidate won; confidence maps
///   the vote margin (best − runner-up) through the medium/high thresholds.
///
/// The vote ring is preallocated; `decide` never allocates.
public final class ActivityStateMachine {
    public let configuration: ActivityConfiguration
    private let ring: UnsafeMutableBufferPointer<ClassProbabilities>
    /// The same windows with their automotive share moved to the other classes (used while
    /// `automotive` may not be entered).
    private let landRing: UnsafeMutableBufferPointer<ClassProbabilities>
    private var writeIndex = 0
    private var count = 0
    /// The activity in force, `nil` before the first decision settles.
    public private(set) var current: MotionActivity?
    /// Most recent vote margin and its confidence (also reported on `current` at each change).
    public private(set) var confidence: MotionActivityConfidence = .low
    private var candidate = ActivityClass.unknown
    private var streak = 0
    private var candidateStart = 0.0

    public init(configuration: ActivityConfiguration) {
        self.configuration = configuration
        let capacity = Swift.max(configuration.voteDecisions, configuration.vehicleVoteDecisions, 1)
        ring = .allocate(capacity: capacity)
        ring.initialize(repeating: ClassProbabilities())
        landRing = .allocate(capacity: capacity)
        landRing.initialize(repeating: ClassProbabilities())
    }

    deinit {
        ring.deallocate()
        landRing.deallocate()
    }

    /// Forgets votes and state (a new recording).
    public func reset() {
        count = 0
        writeIndex = 0
        current = nil
        streak = 0
        candidate = .unknown
    }

    private func mean(last n: Int, land: Bool = false) -> ClassProbabilities {
        let k = Swift.min(n, count)
        var m = ClassProbabilities()
        guard k > 0 else { return m }
        for j in 1...k {
            var i = writeIndex - j
            if i < 0 { i += ring.count }
            m.add(land ? landRing[i] : ring[i])
        }
        m.scale(by: 1 / Double(k))
        return m
    }

    /// Feeds the probabilities of the window ending at `time` (s); returns the new activity when it
    /// changed, else `nil`. `aperiodic` (0…1) says how little step periodicity the window shows:
    /// while `automotive` may not be entered, that share of the window's automotive probability
    /// counts as stationary (a car-like window without gait: the carrier is not walking) and the
    /// rest is spread over the other classes in proportion.
    public func decide(time: Double, probabilities p: ClassProbabilities, aperiodic: Double = 1) -> MotionActivity? {
        let cfg = configuration
        ring[writeIndex] = p
        var land = p
        let share = Swift.min(1, Swift.max(0, aperiodic))
        land.stationary += share * p.automotive
        land.automotive = 0
        let rest = 1 - p.automotive
        if rest > 1e-9 {
            let spread = 1 + (1 - share) * p.automotive / rest
            land.stationary = land.stationary - p.stationary + p.stationary * spread
            land.walking *= spread
            land.running *= spread
            land.cycling *= spread
            land.unknown *= spread
        }
        landRing[writeIndex] = land
        writeIndex += 1
        if writeIndex == ring.count { writeIndex = 0 }
        count = Swift.min(count + 1, ring.count)

        var vote = mean(last: cfg.voteDecisions)
        let inVehicle = current?.automotive ?? false
        var vehiclePending = false
        if !inVehicle {
            // Over the last `vehicleVoteDecisions` windows, or every window so far while fewer.
            let carLike = mean(last: cfg.vehicleVoteDecisions).automotive >= cfg.vehicleEnterProbability
            let voteFull = count >= cfg.vehicleVoteDecisions
            // Not (yet) a vehicle: vote on the windows with their automotive share reassigned, so
            // car-like windows of a hand-held device end a stale walk.
            if !(voteFull && carLike) { vote = mean(last: cfg.voteDecisions, land: true) }
            // Start-up: the windows so far read as a vehicle, but there are fewer than the vote
            // needs to tell a car from a still hand-held device. Nothing is known yet: say nothing
            // rather than the `stationary` the reassigned vote would give.
            vehiclePending = current == nil && !voteFull && carLike
        }
        let (best, margin) = vote.best
        confidence = margin >= cfg.highConfidenceMargin ? .high : margin >= cfg.mediumConfidenceMargin ? .medium : .low
        if vote[best] < cfg.switchProbability && best != current?.primary {
            // Not convincing enough to count towards a change: restart the streak.
            candidate = .unknown
            streak = 0
            return nil
        }
        if best == candidate {
            streak += 1
        } else {
            candidate = best
            streak = 1
            candidateStart = time
        }
        guard streak >= cfg.enterDecisions else { return nil }
        if candidate == .unknown, streak < cfg.unknownAfterGaitDecisions,
           current.map({ $0.primary == .walking || $0.primary == .running }) ?? true {
            return nil
        }

        guard let now = current else {
            if vehiclePending { return nil }
            return change(to: MotionActivity(primary: candidate, confidence: confidence, startDate: candidateStart,
                                             previousDuration: 0))
        }
        if candidate == now.primary {
            if now.automotive && now.stationary {
                return change(to: MotionActivity(primary: .automotive, confidence: confidence,
                                                 startDate: candidateStart, previousDuration: Swift.max(0, candidateStart - now.startDate)))
            }
            return nil
        }
        if now.automotive && candidate == .stationary {
            if !now.stationary {
                return change(to: MotionActivity(primary: .automotive, stoppedInVehicle: true, confidence: confidence,
                                                 startDate: candidateStart, previousDuration: Swift.max(0, candidateStart - now.startDate)))
            }
            guard time - candidateStart >= cfg.vehicleStopTimeout else { return nil }
            return change(to: MotionActivity(primary: .stationary, confidence: confidence, startDate: candidateStart,
                                             previousDuration: Swift.max(0, candidateStart - now.startDate)))
        }
        if now.automotive && streak < cfg.vehicleExitDecisions { return nil }
        guard time - now.startDate >= cfg.minimumDwell else { return nil }
        return change(to: MotionActivity(primary: candidate, confidence: confidence, startDate: candidateStart,
                                         previousDuration: Swift.max(0, candidateStart - now.startDate)))
    }

    private func change(to next: MotionActivity) -> MotionActivity? {
        if let now = current, now.sameFlags(as: next) { return nil }
        current = next
        return next
    }
}
