/// `control:` — run-time commands on `<topic_prefix>/cmd/…` (enable/disable a stream, change its
/// rate). Off by default: anyone allowed to publish there could change what the agent sends.
public struct ControlSettings: Sendable, Equatable {
    /// `enabled`: subscribe to `<topic_prefix>/cmd/#` and obey valid commands.
    public var enabled: Bool

    public init(enabled: Bool = false) { self.enabled = enabled }
}
