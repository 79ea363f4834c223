/// Tunable settings of the activity detector: internal rate, window, and the stream layer's
/// hysteresis. Defaults are the values `scripts/activity-accuracy` was scored with.
public struct ActivityConfiguration: Sendable, Hashable {
    /// Internal rate every source is resampled to, Hz (box average above it, linear interpolation below).
    public var internalRate: Double = 25
    /// Window length in internal samples (a power of two for the FFT): 128 at 25 Hz = 5.12 s.
    public var windowLength: Int = 128
    /// Internal samples between decisions: 25 at 25 Hz = one decision per second.
    public var hop: Int = 25
    /// A gap between source samples longer than this (s) restarts the window (the state is kept).
    public var maximumGap: Double = 1.0

    /// Windows whose halves differ in |f| variance by more than this natural-log ratio straddle a
    /// change and do not vote (3.0 = a factor 20): the mix of two activities looks like a third.
    public var transitionLogRatio: Double = 3.0
    /// Decisions averaged (class probabilities) before choosing a candidate class.
    public var voteDecisions: Int = 3
    /// Consecutive decisions a new candidate must win before the activity changes.
    public var enterDecisions: Int = 2
    /// A candidate counts towards `enterDecisions` only when its mean vote probability reaches this.
    public var switchProbability: Double = 0.5
    /// Consecutive decisions walking/running must win to end an automotive trip (bumps look like steps).
    public var vehicleExitDecisions: Int = 6
    /// Consecutive decisions `unknown` must win to replace walking or running, or to be the first
    /// activity reported (instead of `enterDecisions`). A turn, a step off a kerb or the phone
    /// taken out of a pocket is a second of aperiodic motion inside a walk, and every window
    /// that overlaps it votes less like a gait. 8 = ⌈window / hop⌉ + voteDecisions − 1 = ⌈5.12⌉ + 2:
    /// `unknown` must still be winning when the vote holds no window that saw the gait, so a
    /// transient shorter than a decision never ends a walk (docs/activity.md, "Leaving a gait").
    public var unknownAfterGaitDecisions: Int = 8
    /// Shortest time an activity is kept before another may replace it, s.
    public var minimumDwell: Double = 5
    /// Decisions over which the automotive probability is averaged to enter `automotive`.
    public var vehicleVoteDecisions: Int = 20
    /// Mean automotive probability over `vehicleVoteDecisions` needed to enter `automotive` (0…1).
    public var vehicleEnterProbability: Double = 0.6
    /// While automotive, how long a stationary candidate keeps the vehicle state (flags
    /// `automotive` + `stationary`, a stop at a light) before it becomes plain `stationary`, s.
    public var vehicleStopTimeout: Double = 180
    /// Vehicle rule (physical, hand-set; gyroscope only): a window whose rotation rate varies with
    /// rms at or above this (rad/s, about the window's mean: `ActivityFeatures.gyroRMS`) carries no
    /// `automotive` vote while the device is not already in a vehicle (its automotive probability goes
    /// to the other classes in proportion). A road vehicle's cabin yaws at lateral acceleration /
    /// speed and barely pitches or rolls; its yaw rate changes only as it enters and leaves a bend:
    /// a whole U-turn inside one 5.12 s window (0.79 rad/s for 4 s) varies by 0.32 rms, a steady
    /// turn by 0, and the dev car's windows reach 0.46. 0.6 is a heading swinging ±15° every two
    /// seconds (0.85 rad/s peak at 0.5 Hz): a rowing, climbing or gesturing body, not a cabin.
    /// Inside a trip the rule does not apply (a phone rattling in its mount never ends it). 0 turns
    /// the rule off.
    public var vehicleMaximumGyroRMS: Double = 0.6
    /// Vehicle rule (physical, hand-set; accelerometer only): a window whose dynamic specific force
    /// perpendicular to gravity (rms, `ActivityFeatures.logHorizontalRMS`) is below this multiple of
    /// its dynamic specific force along gravity (std, `logVerticalStd`) carries no `automotive` vote
    /// while the device is not already in a vehicle. A road or rail vehicle moves in the horizontal
    /// plane: accelerating, braking, cornering and the cabin's sway are all horizontal, the
    /// suspension filters the road's vertical input, so its horizontal motion exceeds its vertical
    /// (isotropic vibration gives √2: two horizontal axes against one). Motion mostly along gravity
    /// is a lift, a vibrating table or machine, a body bobbing: not a vehicle setting off. 1 is
    /// "no more horizontal than vertical". Inside a trip the rule does not apply (a pothole or a
    /// rough stretch never ends it). 0 turns the rule off.
    public var vehicleMinimumHorizontalRatio: Double = 1
    /// Vehicle rule (physical, hand-set; gyroscope only): a window that rotates (rms of the rotation
    /// rate as measured, mean kept, at or above `vehicleYawShareMinimumRotation` rad/s) with less than
    /// this share of its rotation about gravity (`ActivityFeatures.gyroYawShare`) carries no
    /// `automotive` vote while the device is not already in a vehicle. A road vehicle's cabin turns
    /// about the vertical (yaw, share 1) and a phone rattling in its mount rotates about every axis
    /// alike (share 1/3); it does not pitch or roll for seconds on end. A body that rows, pedals or
    /// bends at the hips pitches about a horizontal axis (share → 0). 0.15 is under half the share of
    /// rotation with no preferred axis; the dev car's rotating windows have 0.16 / 0.34 (5th
    /// percentile / median), dsa's rowers 0.05 / 0.10. Of {0.1, 0.15} (0.1: under a third of 1/3)
    /// nested leave-one-subject-out cross-validation at 10 Hz chose 0.15 in 10 of 11 folds
    /// (docs/activity.md, "Rocking is not a cabin"). Inside a trip the rule does not apply. 0 turns it off.
    public var vehicleMinimumYawShare: Double = 0.15
    /// The rotation below which `vehicleMinimumYawShare` does not apply, rad/s (≈ 6 °/s): the share
    /// of a device at rest is gyroscope noise and bias, whose axis means nothing.
    public var vehicleYawShareMinimumRotation: Double = 0.1
    /// Vote margins (best minus second mean probability) for medium and high confidence.
    public var mediumConfidenceMargin: Double = 0.25
    public var highConfidenceMargin: Double = 0.5

    /// Open-set rule (`unknown`): a window that moves (|f| std ≥ `minimumGaitStd`) and whose most
    /// probable class, as the fitted model scores it, has probability below this is `unknown`: the
    /// model is not sure it is any class it knows (rowing, jumping, being carried around). 0 turns
    /// the rule off. Chosen by leave-one-subject-out cross-validation (docs/activity.md, "unknown").
    public var unknownBelowProbability: Double = 0.4

    /// Below this standard deviation of |f| (m/s²) a window cannot be walking or running, however
    /// periodic (a step bounces the body by ≳ 0.1 g; a vibrating table does not walk). Hand-set.
    public var minimumGaitStd: Double = 0.25

    /// While walking or running, a window whose newer half still has |f| std ≥ this (m/s²) does
    /// not vote stationary: a gait ends when the motion calms down. Hand-set between the dev
    /// stationary windows (90 % below 0.55) and walking windows (90 % above 1.5).
    public var gaitEndMaximumStd: Double = 0.8

    /// Cycling (hand-set, not fitted: no real cycling data exists): minimum gyro periodicity in the
    /// pedalling band, and the pedalling band in Hz.
    public var cyclingGyroPeriodicity: Double = 0.6
    public var cyclingCadenceRange: ClosedRange<Double> = 0.6...1.8
    /// Cycling also needs gyro rms above this, rad/s: a thigh-pocket device swings at ~1–4 rad/s; the car data never exceeds 0.45.
    public var cyclingMinimumGyroRMS: Double = 1.0
    /// Cycling: |f| varies at the pedal cadence (ratio of the step cadence of |f| to the gyro cadence
    /// within this range), whereas in walking and running |f| beats twice per leg swing (ratio ≈ 2).
    public var cyclingCadenceRatio: ClosedRange<Double> = 0.75...1.35
    /// Cycling is smooth: a window whose |f| is a train of impact peaks — kurtosis of |f| at or above
    /// `cyclingMaximumKurtosis` with |f| std at or above `cyclingImpactMinimumStd` m/s² — is a gait,
    /// never pedalling, however periodic its rotation. Physics: a heel strike is a short peak of
    /// specific force (kurtosis ≫ 3; a sinusoid has 1.5, Gaussian noise 3); a pedalling leg moves
    /// on a circle. On the knee units of dsa (p1–p4; 25 Hz) |f| kurtosis is ≥ 2.6 in 98 % of walking
    /// windows and < 2.6 in 97 % of exercise-bike windows (5 s windows), where the rule without this
    /// gate fired on 58 % of the walking windows. The std floor (a step moves the leg by ≳ 0.1 g)
    /// keeps sensor noise, whose kurtosis is 3, from counting as impacts.
    public var cyclingMaximumKurtosis: Double = 2.6
    public var cyclingImpactMinimumStd: Double = 1.0
    /// Seated pedalling seen from the torso (chest, jacket, bag strap): the body rocks at the pedal
    /// cadence but barely rotates (rms 0.3–0.6 rad/s, below `cyclingMinimumGyroRMS`) and carries no
    /// gait bounce. A window whose rotation rate is clearly periodic (autocorrelation ≥
    /// `cyclingSeatedGyroPeriodicity`, the stream layer's "clearly periodic" 0.5) in
    /// `cyclingCadenceRange`, with rms ≥ `cyclingSeatedMinimumGyroRMS` rad/s (≈ 11 °/s; a device at
    /// rest reads 0.01–0.05) while |f| std stays below `cyclingSeatedMaximumStd` m/s² is cycling.
    /// Physics of the std bound: every step lifts and drops the body's centre of mass by ~4 cm at
    /// ~1.8 steps/s, a vertical acceleration of ±(0.04/2)·(2π·1.8)² ≈ ±2.6 m/s² (std ≈ 1.8), so a
    /// walk or run never stays below 0.8 (the dev walking windows: 1st percentile 1.0 m/s²);
    /// a seated rider's torso does. On dsa (p1–p4) it fires on 54–89 % of each person's chest
    /// exercise-bike windows, on none of their other windows (chest or knee) and on 1.1 % of the car's.
    public var cyclingSeatedGyroPeriodicity: Double = 0.5
    public var cyclingSeatedMinimumGyroRMS: Double = 0.2
    public var cyclingSeatedMaximumStd: Double = 0.8

    /// Running rule (hand-set, physical): a periodic gait (periodicity ≥ `gaitPeriodicity`) at
    /// ≥ `runningCadence` steps/s with |f| std ≥ `runningMinimumStd` m/s² is running, whatever its
    /// amplitude (brisk walking stays below ~2.3 steps/s; the fitted model leans on amplitude,
    /// which depends on where the device is worn). Never fires on the dev walking windows.
    public var runningCadence: Double = 2.4
    public var gaitPeriodicity: Double = 0.6
    public var runningMinimumStd: Double = 2.0
    /// Stride rule (hand-set, physical): a gait that repeats more slowly than this (Hz) is not
    /// running: its running share goes to walking. 1.05 Hz is a stride (two steps) at 126
    /// steps/min: running cadence is ~150–180 steps/min (≥ 2.3 steps/s, stride ≥ 1.15 Hz) and
    /// walking ~90–125. The period is the rotation rate's when it is periodic (autocorrelation ≥
    /// `gaitPeriodicity`): a limb or torso turns once per stride wherever the device is worn. Else
    /// it is that of |f| (periodic ≥ `gaitPeriodicity`), which repeats once a step (trunk, hand) or
    /// once a stride (a pocket or knee unit feels its own heel strike): a run's step (≥ 2.3/s) and
    /// its stride (≥ 1.15 Hz) are both faster than the threshold, a walk's stride is slower. On
    /// dsa (p1–p4, chest and knee, windows with gyro periodicity ≥ 0.6) the walking strides lie at
    /// 0.61–0.96 Hz and the running strides at 1.19–1.39 Hz. 0 turns it off.
    public var runningMinimumStrideRate: Double = 1.05

    /// Input guard: below this source rate (Hz, measured over each decision hop) the detector
    /// withholds decisions and reports `ActivityInputProblem.rateTooLow` (8 leaves room for a
    /// jittery 10 Hz source; below that the resampler would be interpolating most samples).
    public var minimumInputRate: Double = 8
    /// Below this source rate (Hz, measured over each decision hop) a decision uses the detector's
    /// low-rate model (`ActivityModel.fittedLowRate`, fitted on the recordings decimated to 10 Hz),
    /// at or above it the main one (fitted as recorded, 25–400 Hz). Below ~2 × 5 Hz a source's
    /// spectrum is empty above its Nyquist frequency, which shifts the spectral features (the high-
    /// frequency share above all) so far that one model cannot serve both: the main model called a
    /// car decimated to 10 Hz walking or stationary in every held-out decision. 16 ≈ √(10 × 25), the
    /// geometric mean of the rates the two are fitted at; 0 = always the main model.
    public var lowRateModelBelow: Double = SourceRateMeter.lowRateBelow
    /// Input guard: a window whose mean |f| lies outside this range (m/s²) is not raw specific
    /// force in m/s² (gravity removed, or in g): decisions are withheld and
    /// `ActivityInputProblem.noGravity` is reported. Raw acceleration has mean |f| ≥ |mean f| ≈ 9.81
    /// over a window whatever the motion (free fall and jumps last well under a window); vigorous
    /// motion raises the mean of |f| well above g — 18.8 m/s² for dsa's knee unit on the treadmill at
    /// 8 km/h, 22.5 for an st_har wrist run — so the upper bound (4 g) only catches wrong units
    /// (mg, cm/s²). It was 13.5, which withheld every decision of 15 of the 21 dev running recordings.
    public var gravityRange: ClosedRange<Double> = 6.5...40

    public init() {}

    /// Window length in seconds.
    public var windowDuration: Double { Double(windowLength) / internalRate }

    /// Names what is wrong, or `nil` when the settings are usable.
    public func validationError() -> String? {
        if !(internalRate >= 5 && internalRate <= 200) { return "internalRate \(internalRate) Hz: use 5–200 Hz" }
        if windowLength < 32 || windowLength > 4096 || windowLength & (windowLength - 1) != 0 {
            return "windowLength \(windowLength): use a power of two between 32 and 4096"
        }
        if hop < 1 || hop > windowLength { return "hop \(hop): use 1…windowLength" }
        // Decisions are once a second by default and the vote, dwell and enter counts are meant in
        // such decisions; more than 10 a second only multiplies the per-sample cost (each decision
        // reads the whole window: hop 1 at 4096 samples is ~100× the default's cost).
        if Double(hop) < internalRate / 10 {
            return "hop \(hop) at internalRate \(internalRate) Hz is more than 10 decisions per second: use hop ≥ \(Int((internalRate / 10).rounded(.up)))"
        }
        // Probabilities and vote margins: outside 0…1 a threshold is never or always met, so a
        // class (automotive above all) would silently never be entered.
        for (name, value) in [("vehicleEnterProbability", vehicleEnterProbability), ("switchProbability", switchProbability),
                              ("mediumConfidenceMargin", mediumConfidenceMargin), ("highConfidenceMargin", highConfidenceMargin)]
        where !(value >= 0 && value <= 1) {
            return "\(name) \(value): use 0…1"
        }
        if mediumConfidenceMargin > highConfidenceMargin {
            return "mediumConfidenceMargin \(mediumConfidenceMargin) is above highConfidenceMargin \(highConfidenceMargin): use medium ≤ high"
        }
        if voteDecisions < 1 || voteDecisions > 600 { return "voteDecisions \(voteDecisions): use 1–600" }
        if vehicleVoteDecisions < 1 || vehicleVoteDecisions > 600 { return "vehicleVoteDecisions \(vehicleVoteDecisions): use 1–600" }
        if enterDecisions < 1 { return "enterDecisions \(enterDecisions): use ≥ 1" }
        if unknownAfterGaitDecisions < 1 { return "unknownAfterGaitDecisions \(unknownAfterGaitDecisions): use ≥ 1" }
        if minimumDwell < 0 || vehicleStopTimeout < 0 { return "minimumDwell and vehicleStopTimeout must be ≥ 0 s" }
        if !(vehicleMaximumGyroRMS >= 0 && vehicleMaximumGyroRMS.isFinite) {
            return "vehicleMaximumGyroRMS \(vehicleMaximumGyroRMS) rad/s: use ≥ 0 (0 = off)"
        }
        if !(vehicleMinimumHorizontalRatio >= 0 && vehicleMinimumHorizontalRatio.isFinite) {
            return "vehicleMinimumHorizontalRatio \(vehicleMinimumHorizontalRatio): use ≥ 0 (0 = off)"
        }
        if !(vehicleMinimumYawShare >= 0 && vehicleMinimumYawShare <= 1) {
            return "vehicleMinimumYawShare \(vehicleMinimumYawShare): use 0…1 (0 = off)"
        }
        if !(vehicleYawShareMinimumRotation >= 0 && vehicleYawShareMinimumRotation.isFinite) {
            return "vehicleYawShareMinimumRotation \(vehicleYawShareMinimumRotation) rad/s: use ≥ 0"
        }
        if !(lowRateModelBelow >= 0 && lowRateModelBelow.isFinite) {
            return "lowRateModelBelow \(lowRateModelBelow) Hz: use ≥ 0 (0 = never the low-rate model)"
        }
        if !(runningMinimumStrideRate >= 0 && runningMinimumStrideRate.isFinite) {
            return "runningMinimumStrideRate \(runningMinimumStrideRate) Hz: use ≥ 0 (0 = off)"
        }
        if !(unknownBelowProbability >= 0 && unknownBelowProbability <= 1) {
            return "unknownBelowProbability \(unknownBelowProbability): use 0…1 (0 = off)"
        }
        return nil
    }
}
