/// Settings of the pedometer. Distances in m, times in s, accelerations in m/s².
public struct PedometerConfiguration: Sendable, Hashable {
    /// Step length (one foot to the other), m, measured by the user (walk a known distance, divide
    /// by the steps). When set it is used for every step; when `nil`, see `stepLength(cadence:)`.
    public var strideLength: Double?
    /// The walker's height, m, used when `strideLength` is `nil`.
    public var height: Double?
    /// Rate the step detector runs at, Hz (sources are box-averaged / interpolated onto it).
    public var internalRate: Double = 50
    /// Band-pass of |f| before peak detection, Hz (cadence 0.6–3.5 steps/s; the upper edge
    /// chosen by cross-validation on oxford_steps, see docs/activity.md).
    public var lowCutoff: Double = 0.6
    public var highCutoff: Double = 3.0
    /// Shortest and longest time between two steps of one walk, s.
    public var minimumStepInterval: Double = 0.25
    public var maximumStepInterval: Double = 2.0
    /// Smallest peak of the band-passed |f| that can be a step, m/s² (the adaptive threshold never goes lower).
    public var minimumPeak: Double = 0.5
    /// Fraction of the recent peak amplitude a new peak must reach.
    public var relativeThreshold: Double = 0.4
    /// Regular steps needed before a walk is confirmed (they are then counted retroactively).
    public var confirmationSteps: Int = 4
    /// Largest relative change of a step interval against the previous one or the one before it
    /// while a walk is being confirmed (cross-validated on oxford_steps, see docs/activity.md).
    public var regularity: Double = 0.4
    /// During a walk, a peak sooner than this fraction of the walk's step period (EMA of its step
    /// intervals, s) after the last step is a second bump of that step, not a step (0: off), unless
    /// its interval repeats, within `regularity`, the interval one stride earlier (the short step
    /// of an asymmetric gait: a knee or a pocket). 0.5: a peak nearer the last step than the next
    /// one belongs to it (a hand-held phone at a slow cadence bounces once more within each step).
    /// On against off cross-validated on oxford_steps, see docs/activity.md.
    public var secondBumpFraction: Double = 0.5
    /// During a walk whose last two step intervals agree within `regularity`, a peak within
    /// `expectedStepTolerance` × the walk's step period of one step period after the last step
    /// (where its rhythm puts the next step) needs only this fraction of the threshold
    /// (`minimumPeak`, `relativeThreshold`): a gentle step of a steady walk (1: off).
    /// Cross-validated on oxford_steps, see docs/activity.md.
    public var expectedStepFraction: Double = 0.5
    /// Relative window of `expectedStepFraction` around one step period (0: off).
    public var expectedStepTolerance: Double = 0.15
    /// Longest stretch of steps (s) held while the gait gate is closed, waiting for the activity
    /// detector to confirm walking or running (its delay is ~5–10 s); older held steps are dropped.
    public var gateHoldTime: Double = 15
    /// Source rate below which `lowRate` applies, Hz, measured over each second of input
    /// (`SourceRateMeter.lowRateBelow`, as the activity detector's `lowRateModelBelow`; 0: never).
    public var lowRateBelow: Double = SourceRateMeter.lowRateBelow
    /// Step detection for a low-rate source (a 10 Hz low-power accelerometer mode).
    public var lowRate = LowRate()

    /// Step detection below `lowRateBelow`. A heel strike lasts well under 0.1 s, so a 10 Hz source
    /// without an anti-alias filter catches it whole, in part or not at all, depending on where its
    /// samples fall: the band-passed peaks of one steady walk range from a fraction to several
    /// times their usual height (oxford_steps decimated to 10 Hz: 1.4 to 14.7 m/s² within 4 s of
    /// one back-pocket walk, 4 and 8 at 208 Hz). With the full-rate rules one caught impact raises
    /// the adaptive threshold above the next half-caught steps and the walk locks onto every
    /// other step (−42 % on that walk). The three rules below were chosen together by
    /// cross-validation (leave-one-placement-, subject- and phone-out) on oxford_steps decimated to
    /// 10 Hz with and without averaging (`scripts/pedometer-cv --rate 10`, docs/activity.md).
    public struct LowRate: Sendable, Hashable {
        /// Fraction of the recent peak amplitude a new peak must reach (instead of `relativeThreshold`).
        public var relativeThreshold: Double = 0.3
        /// A peak adds at most this multiple of the recent amplitude to it (one caught impact
        /// does not raise the threshold above the walk's other steps; 0: no limit).
        public var amplitudeStepLimit: Double = 1.5
        /// During a walk, two steps 2 × the walk's step period apart (within this fraction of a
        /// period) count as two: the step between them fell between samples (0: off).
        public var missedStepTolerance: Double = 0.3

        public init() {}
    }

    /// No step for this long pauses the walk, s.
    public var pauseAfter: Double = 2.0
    /// Height of one floor, m (pressure channel only).
    public var floorHeight: Double = 3.0

    public init(strideLength: Double? = nil, height: Double? = nil) {
        self.strideLength = strideLength
        self.height = height
    }

    /// The step length at the reference cadence, m: `strideLength`, else 0.415 × `height` (the
    /// usual pedometer rule for an adult's walking step), else 0.7 m (that rule at 1.69 m).
    public var effectiveStrideLength: Double {
        if let s = strideLength { return s }
        if let h = height { return 0.415 * h }
        return 0.7
    }

    /// Cadence at which `effectiveStrideLength` applies, steps/s (a usual self-selected walking cadence).
    public static let referenceCadence = 1.8

    /// The length of a step taken at `cadence` steps/s, m. A configured `strideLength` is used as
    /// it is. Otherwise `effectiveStrideLength` × √(cadence / `referenceCadence`), with the cadence
    /// clamped to 1–3.5 steps/s (0: the reference): people lengthen their steps as they speed up,
    /// and step length ∝ height × √(step frequency) is one of the published parametric step-length
    /// models. Not validated here (no data set we have measures distance); expect ±10–15 % for a
    /// given person at normal pace, more when running. A measured `strideLength` is better.
    public func stepLength(cadence: Double) -> Double {
        if let s = strideLength { return s }
        let f = cadence > 0 ? Swift.min(3.5, Swift.max(1.0, cadence)) : Self.referenceCadence
        return effectiveStrideLength * (f / Self.referenceCadence).squareRoot()
    }
}
