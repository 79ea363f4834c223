/// Publishes an MQTT 5 broker refused (PUBACK / PUBREC reason code ≥ 0x80, e.g. 135 "not
/// authorised" from its ACL), per topic — see `MQTTClient.refusals`.
public struct MQTTPublishRefusals: Sendable, Equatable {
    public struct Topic: Sendable, Equatable {
        /// Publishes refused on this topic.
        public var count = 0
        /// The latest reason code.
        public var reason: Int32
        public init(count: Int = 0, reason: Int32) {
            self.count = count
            self.reason = reason
        }
    }
    public var byTopic: [String: Topic] = [:]
    /// All refusals.
    public var total = 0
    /// The latest, as one sentence naming topic and reason (for `health.last_error`).
    public var last: String?
    public init() {}
}
