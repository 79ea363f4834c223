import MotionCore

/// The raw sensor streams a pipeline can deliver (Core Motion's accelerometer, gyro and
/// magnetometer updates).
public enum SensorStream: String, Sendable, CaseIterable, Hashable {
    case accelerometer
    case gyroscope
    case magnetometer

    /// The sample contents this stream needs from the source.
    public var requiredContents: IMUSample.Contents {
        switch self {
        case .accelerometer: .accelerometer
        case .gyroscope: .gyroscope
        case .magnetometer: .magnetometer
        }
    }
}

/// How one output stream is sampled and batched.
public struct StreamSchedule: Sendable, Hashable {
    /// Whether the stream is produced at all.
    public var enabled: Bool
    /// Samples per second delivered (decimated from the source rate). Capped at the source rate.
    public var rate: Double
    /// Batches per second (`rate / publishRate` samples per batch, at least 1).
    public var publishRate: Double

    public init(enabled: Bool = true, rate: Double, publishRate: Double) {
        self.enabled = enabled
        self.rate = rate
        self.publishRate = publishRate
    }

    public static let disabled = StreamSchedule(enabled: false, rate: 0, publishRate: 1)
}

/// A schedule resolved against the source's actual rate: what will really be delivered.
public struct EffectiveSchedule: Sendable, Hashable {
    public var enabled: Bool
    /// Keep one source sample in `decimation`.
    public var decimation: Int
    /// Delivered samples per second: source rate / decimation.
    public var rate: Double
    /// Samples per batch, 1 … `maximumBatchSize`.
    public var batchSize: Int
    /// The largest batch a stream allocates, samples: a schedule asking for more (a tiny
    /// `publishRate`) is clamped here, so no buffer is ever sized from an unchecked quotient.
    /// The agent refuses such a schedule before it gets here (`streams.*.publish_rate`).
    public static let maximumBatchSize = 10_000
    /// The largest decimation, source samples per delivered sample (a tiny `rate` is clamped).
    public static let maximumDecimation = 1_000_000
    /// Seconds between delivered samples.
    public var interval: Double { rate > 0 ? 1 / rate : 0 }
    /// Whether the requested rate had to be lowered to what the source can do.
    public var capped: Bool

    /// Resolves `schedule` for a source running at `sourceRate` Hz.
    public init(_ schedule: StreamSchedule, sourceRate: Double) {
        guard schedule.enabled, sourceRate > 0 else {
            self.enabled = false
            self.decimation = 1
            self.rate = 0
            self.batchSize = 1
            self.capped = false
            return
        }
        let requested = schedule.rate > 0 ? schedule.rate : sourceRate
        capped = requested > sourceRate * (1 + 1e-9)
        decimation = Self.clampedCount(sourceRate / min(requested, sourceRate), to: Self.maximumDecimation)
        rate = sourceRate / Double(decimation)
        batchSize = Self.clampedCount(rate / schedule.publishRate, to: Self.maximumBatchSize)
        enabled = true
    }

    /// `quotient` rounded to a whole count in 1 … `limit`; NaN, zero, negative and infinite
    /// quotients (a zero or NaN rate) become 1 or `limit` instead of trapping in `Int(_:)`.
    public static func clampedCount(_ quotient: Double, to limit: Int) -> Int {
        guard !quotient.isNaN else { return 1 }
        let r = quotient.rounded()
        if r >= Double(limit) { return limit }
        return r >= 1 ? Int(r) : 1
    }
}
