/// Settings of the pedometer. Distances in m, times in s, accelerations in m/s².
public struct PedometerConfiguration: Sendable, Hashable {
    /// Step length, m. When `nil`, derived from `height` (0.415 × height), else 0.7 m.
    public var strideLength: Double?
    /// The walker's height, m, used when `strideLength` is `nil`.
    public var height: Double?
    /// Rate the step detector runs at, Hz (sources are box-averaged / interpolated onto it).
    public var internalRate: Double = 50
    /// Band-pass of |f| before peak detection, Hz (cadence 0.5–3.5 steps/s).
    public var lowCutoff: Double = 0.6
    public var highCutoff: Double = 3.5
    /// Shortest and longest time between two steps of one walk, s.
    public var minimumStepInterval: Double = 0.25
    public var maximumStepInterval: Double = 2.0
    /// Smallest peak of the band-passed |f| that can be a step, m/s² (the adaptive threshold never goes lower).
    public var minimumPeak: Double = 0.5
    /// Fraction of the recent peak amplitude a new peak must reach.
    public var relativeThreshold: Double = 0.4
    /// Regular steps needed before a walk is confirmed (they are then counted retroactively).
    public var confirmationSteps: Int = 4
    /// Largest relative change between consecutive step intervals while a walk is being confirmed.
    public var regularity: Double = 0.3
    /// Longest stretch of steps (s) held while the gait gate is closed, waiting for the activity
    /// detector to confirm walking or running (its delay is ~5–10 s); older held steps are dropped.
    public var gateHoldTime: Double = 15
    /// No step for this long pauses the walk, s.
    public var pauseAfter: Double = 2.0
    /// Height of one floor, m (pressure channel only).
    public var floorHeight: Double = 3.0

    public init(strideLength: Double? = nil, height: Double? = nil) {
        self.strideLength = strideLength
        self.height = height
    }

    /// The step length in use, m.
    public var effectiveStrideLength: Double {
        if let s = strideLength { return s }
        if let h = height { return 0.415 * h }
        return 0.7
    }
}
