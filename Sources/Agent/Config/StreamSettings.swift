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

    /// Samples per MQTT message (at least 1) given the source's rate.
    public func samplesPerMessage(sourceRate: Double) -> Int {
        max(1, Int((effectiveRate(sourceRate: sourceRate) / publishRate).rounded()))
    }
}
