/// Core Motion's `CMPedometerData`: totals since the pedometer started, and the current rates.
@frozen
public struct PedometerData: Sendable, Hashable, BitwiseCopyable {
    /// Start of the counting period, seconds of the sample clock.
    public var startDate: Double
    /// Time of the latest sample, seconds of the sample clock.
    public var endDate: Double
    public var numberOfSteps: Int
    /// Estimated distance, m: the sum of each counted step's `PedometerConfiguration.stepLength(cadence:)`.
    public var distance: Double
    /// Floors climbed / descended (only with a pressure channel; `nil` otherwise, as Core Motion).
    public var floorsAscended: Int?
    public var floorsDescended: Int?
    /// Current pace, s/m: 1 / (cadence × step length); 0 when steps are not being counted.
    public var currentPace: Double
    /// Current cadence, steps/s (0 when steps are not being counted: paused, or the gait gate closed).
    public var currentCadence: Double
    /// Mean pace over the time spent walking, s/m: walking time / distance (0 before the first step).
    public var averageActivePace: Double

    public init(startDate: Double, endDate: Double, numberOfSteps: Int = 0, distance: Double = 0,
                floorsAscended: Int? = nil, floorsDescended: Int? = nil, currentPace: Double = 0,
                currentCadence: Double = 0, averageActivePace: Double = 0) {
        self.startDate = startDate
        self.endDate = endDate
        self.numberOfSteps = numberOfSteps
        self.distance = distance
        self.floorsAscended = floorsAscended
        self.floorsDescended = floorsDescended
        self.currentPace = currentPace
        self.currentCadence = currentCadence
        self.averageActivePace = averageActivePace
    }
}

/// Core Motion's `CMPedometerEvent`: walking paused or resumed, with the time it happened.
@frozen
public struct PedometerEvent: Sendable, Hashable, BitwiseCopyable {
    public enum Kind: Int, Sendable, Hashable, BitwiseCopyable {
        /// `CMPedometerEventType.pause`: no step for `PedometerConfiguration.pauseAfter` seconds.
        case pause = 0
        /// `CMPedometerEventType.resume`: a regular walk has started (again).
        case resume = 1

        public var name: String { self == .pause ? "pause" : "resume" }
    }

    public var kind: Kind
    /// When it happened, seconds of the sample clock (the last step for pause, the first confirmed step for resume).
    public var date: Double

    public init(kind: Kind, date: Double) {
        self.kind = kind
        self.date = date
    }
}
