/// One entry of `streams:` — how one stream is published.
public struct StreamSettings: Sendable, Equatable {
    /// `enabled`: publish this stream.
    public var enabled: Bool
    /// `rate`: samples per second carried by the stream, Hz. 0 means "the source rate".
    /// Must not exceed `source.rate`.
    public var rate: Double
    /// `publish_rate`: MQTT messages per second, Hz (samples are batched); ≤ the stream's rate.
    public var publishRate: Double
    /// `qos`: MQTT quality of service, 0…2.
    public var qos: Int
    /// `retain`: publish with the retain flag.
    public var retain: Bool
    /// `format`: payload encoding, `json` (default) or `influx` (line protocol, docs/influx.md).
    public var format: PayloadFormat = .json

    public init(enabled: Bool = true, rate: Double = 100, publishRate: Double = 10, qos: Int = 0, retain: Bool = false) {
        self.enabled = enabled
        self.rate = rate
        self.publishRate = publishRate
        self.qos = qos
        self.retain = retain
    }

    /// The stream's sample rate in Hz given the source's rate: `rate`, or the source rate when
    /// `rate` is 0 or above it.
    public func effectiveRate(sourceRate: Double) -> Double {
        rate <= 0 ? sourceRate : min(rate, sourceRate)
    }

    /// Lowest `publish_rate`, Hz (one message every 100 s).
    public static let minimumPublishRate = 0.01
    /// Lowest non-zero `rate`, Hz.
    public static let minimumRate = 0.01
    /// Most samples one message may carry (`rate / publish_rate`): the batch buffer each stream
    /// allocates up front; the same as the pipeline's own clamp (`EffectiveSchedule.maximumBatchSize`).
    public static let maximumSamplesPerMessage = 10_000
    /// The allowed range of `rate`, as error messages state it.
    public static let rateRange = "0 (the source rate) or 0.01 ≤ rate ≤ 10000"
    /// The allowed range of `publish_rate`, as error messages state it.
    public static let publishRateRange = "0.01 ≤ publish_rate ≤ 10000, and at most 10000 samples per message (rate / publish_rate)"

    /// Whether `value` is an allowed `rate` on its own (before the source's rate is known).
    public static func isAllowedRate(_ value: Double) -> Bool {
        value == 0 || (value >= minimumRate && value <= 10_000)
    }

    /// Whether `value` is an allowed `publish_rate` on its own.
    public static func isAllowedPublishRate(_ value: Double) -> Bool {
        value >= minimumPublishRate && value <= 10_000
    }

    /// Why these settings cannot run on a source of `sourceRate` Hz, or nil: more messages than
    /// samples, or more samples per message than `maximumSamplesPerMessage` (a `rate` above the
    /// source's is followed down to it: `effectiveRate`). The message names `publish_rate` and the bound.
    public func rateProblem(sourceRate: Double) -> String? {
        guard enabled else { return nil }
        let effective = effectiveRate(sourceRate: sourceRate)
        if publishRate > effective {
            return "publish_rate \(publishRate) Hz is above the stream's rate \(effective) Hz; publish_rate must be ≤ rate (each message carries rate/publish_rate samples)"
        }
        let perMessage = effective / publishRate
        if !(perMessage <= Double(Self.maximumSamplesPerMessage)) {
            let lowest = effective / Double(Self.maximumSamplesPerMessage)
            return "publish_rate \(publishRate) Hz at rate \(effective) Hz makes \(perMessage.rounded()) samples per message; at most \(Self.maximumSamplesPerMessage): use publish_rate ≥ \(lowest) Hz"
        }
        return nil
    }

    /// Samples per MQTT message (at least 1) given the source's rate.
    public func samplesPerMessage(sourceRate: Double) -> Int {
        let perMessage = (effectiveRate(sourceRate: sourceRate) / publishRate).rounded()
        guard !perMessage.isNaN, perMessage >= 1 else { return 1 }
        return perMessage >= Double(Self.maximumSamplesPerMessage) ? Self.maximumSamplesPerMessage : Int(perMessage)
    }
}
