/// `control:` — run-time commands on `<topic_prefix>/cmd/…` (enable/disable a stream, change its
/// rate). Off by default: anyone allowed to publish there could change what the agent sends.
public struct ControlSettings: Sendable, Equatable {
    /// `enabled`: subscribe to `<topic_prefix>/cmd/#` and obey valid commands.
    public var enabled: Bool
    /// `reply_topic_prefix`: where query answers may be published (`reply_to`, the MQTT 5
    /// response topic). Empty (the default): any topic outside the device trees (`ReplyTopicPolicy`);
    /// set, e.g. `clients/`: only topics starting with it, plus the agent's own reply levels
    /// `<topic_prefix>/replies/…` and `<topic_prefix>/query/<kind>/response`.
    public var replyTopicPrefix: String = ""

    public init(enabled: Bool = false) { self.enabled = enabled }
}
