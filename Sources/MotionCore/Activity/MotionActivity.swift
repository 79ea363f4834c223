/// How sure the detector is of a `MotionActivity` (`CMMotionActivityConfidence`: low 0, medium 1, high 2).
public enum MotionActivityConfidence: Int, Sendable, Hashable, Comparable, CaseIterable, BitwiseCopyable {
    case low = 0
    case medium = 1
    case high = 2

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    public var name: String {
        switch self {
        case .low: "low"
        case .medium: "medium"
        case .high: "high"
        }
    }

    public init?(name: String) {
        switch name {
        case "low": self = .low
        case "medium": self = .medium
        case "high": self = .high
        default: return nil
        }
    }
}

/// The activity classes a window can be classified as; also the scorer's label strings.
public enum ActivityClass: Int, Sendable, Hashable, CaseIterable, BitwiseCopyable {
    case stationary = 0
    case walking = 1
    case running = 2
    case cycling = 3
    case automotive = 4
    case unknown = 5

    /// Number of classes (raw values are 0 ..< count).
    public static let count = 6

    /// The label used in the shared data and by `activity_eval.py`.
    public var name: String {
        switch self {
        case .stationary: "stationary"
        case .walking: "walking"
        case .running: "running"
        case .cycling: "cycling"
        case .automotive: "automotive"
        case .unknown: "unknown"
        }
    }

    public init?(name: String) {
        guard let c = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = c
    }
}

/// Core Motion's `CMMotionActivity`: what the device's carrier is doing, since when, and how sure we are.
///
/// The flags are **not mutually exclusive**: a car stopped at a red light is `automotive` and
/// `stationary`. All flags false with `unknown` false is possible (nothing decided yet).
@frozen
public struct MotionActivity: Hashable, Sendable, BitwiseCopyable {
    public var stationary: Bool
    public var walking: Bool
    public var running: Bool
    public var cycling: Bool
    public var automotive: Bool
    public var unknown: Bool
    public var confidence: MotionActivityConfidence
    /// When this activity began, seconds of the sample clock (`CLOCK_MONOTONIC` for live sources,
    /// recording time for replays). Backdated to the first decision window of the new state.
    public var startDate: Double
    /// How long the previous activity lasted (its start to this `startDate`), seconds; 0 for the first.
    public var previousDuration: Double

    @inlinable
    public init(stationary: Bool = false, walking: Bool = false, running: Bool = false, cycling: Bool = false,
                automotive: Bool = false, unknown: Bool = false, confidence: MotionActivityConfidence = .low,
                startDate: Double = 0, previousDuration: Double = 0) {
        self.stationary = stationary
        self.walking = walking
        self.running = running
        self.cycling = cycling
        self.automotive = automotive
        self.unknown = unknown
        self.confidence = confidence
        self.startDate = startDate
        self.previousDuration = previousDuration
    }

    /// An activity with the one flag of `primary` set (plus `stationary` when `stoppedInVehicle`).
    @inlinable
    public init(primary: ActivityClass, stoppedInVehicle: Bool = false, confidence: MotionActivityConfidence,
                startDate: Double, previousDuration: Double) {
        self.init(confidence: confidence, startDate: startDate, previousDuration: previousDuration)
        switch primary {
        case .stationary: stationary = true
        case .walking: walking = true
        case .running: running = true
        case .cycling: cycling = true
        case .automotive: automotive = true; stationary = stoppedInVehicle
        case .unknown: unknown = true
        }
    }

    /// The single label a scorer compares with (automotive wins over stationary, as the mode of transport).
    public var primary: ActivityClass {
        if automotive { return .automotive }
        if cycling { return .cycling }
        if running { return .running }
        if walking { return .walking }
        if stationary { return .stationary }
        return .unknown
    }

    /// Whether the motion flags (not confidence or dates) are equal.
    @inlinable
    public func sameFlags(as other: MotionActivity) -> Bool {
        stationary == other.stationary && walking == other.walking && running == other.running
            && cycling == other.cycling && automotive == other.automotive && unknown == other.unknown
    }

    /// The flags that are set, comma separated (`automotive,stationary`), for logs and tables.
    public var flagNames: String {
        var parts: [String] = []
        if automotive { parts.append("automotive") }
        if cycling { parts.append("cycling") }
        if running { parts.append("running") }
        if walking { parts.append("walking") }
        if stationary { parts.append("stationary") }
        if unknown { parts.append("unknown") }
        return parts.joined(separator: ",")
    }
}
