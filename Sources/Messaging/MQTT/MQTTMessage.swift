/// One MQTT application message, as published or as received.
public struct MQTTMessage: Sendable, Equatable {
    /// Topic name (no wildcards when publishing).
    public var topic: String
    /// Raw payload bytes; JSON payloads are UTF-8.
    public var payload: [UInt8]
    /// Quality of service, 0…2.
    public var qos: Int
    /// Retain flag. On received messages: `true` when the broker delivered a stored retained message
    /// (e.g. to a subscriber that arrived late).
    public var retain: Bool
    /// MQTT 5 request/response: the topic the sender wants the answer on (`nil` over 3.1.1).
    public var responseTopic: String?
    /// MQTT 5 request/response: opaque bytes to echo back in the answer (`nil` when absent).
    public var correlationData: [UInt8]?

    public init(topic: String, payload: [UInt8], qos: Int = 0, retain: Bool = false,
                responseTopic: String? = nil, correlationData: [UInt8]? = nil) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.responseTopic = responseTopic
        self.correlationData = correlationData
    }

    /// Convenience for text payloads (`online`, `offline`, JSON documents).
    public init(topic: String, string: String, qos: Int = 0, retain: Bool = false) {
        self.init(topic: topic, payload: Array(string.utf8), qos: qos, retain: retain)
    }

    /// The payload decoded as UTF-8 (invalid sequences are replaced).
    public var payloadString: String { String(decoding: payload, as: UTF8.self) }
}
