/// `home_assistant:` — Home Assistant MQTT discovery and the throttled `summary` topic it reads.
/// Off by default: nothing is announced unless `enabled: true`.
public struct HomeAssistantSettings: Sendable, Equatable {
    /// `enabled`: announce entities and publish `<prefix>/summary`.
    public var enabled: Bool
    /// `discovery_prefix`: Home Assistant's discovery prefix (its MQTT integration setting), one or
    /// more topic levels without wildcards.
    public var discoveryPrefix: String
    /// `summary_rate`: most `summary` messages per second, Hz, 0 < rate ≤ 1 (so high-rate streams
    /// never reach Home Assistant's recorder).
    public var summaryRate: Double
    /// `angle_deadband_deg`: a new summary is sent only when roll, pitch or heading moved by more
    /// than this many degrees, or `moving` changed, or `heartbeat_s` passed. Degrees, 0…90.
    public var angleDeadbandDegrees: Double
    /// `heartbeat_s`: send the summary at least this often even when nothing changed, seconds.
    public var heartbeatSeconds: Double
    /// `expire_after_s`: seconds after which Home Assistant shows summary entities as unavailable
    /// when no summary arrived (0 = never). Should exceed `heartbeat_s`.
    public var expireAfterSeconds: Int
    /// `configuration_url`: the link on Home Assistant's device page (an `http://` or `https://`
    /// URL); `nil` = the dashboard's address when `http.enabled` listens on a reachable address.
    public var configurationURL: String?

    public init(enabled: Bool = false, discoveryPrefix: String = "homeassistant", summaryRate: Double = 1,
                angleDeadbandDegrees: Double = 1, heartbeatSeconds: Double = 60, expireAfterSeconds: Int = 180) {
        self.enabled = enabled
        self.discoveryPrefix = discoveryPrefix
        self.summaryRate = summaryRate
        self.angleDeadbandDegrees = angleDeadbandDegrees
        self.heartbeatSeconds = heartbeatSeconds
        self.expireAfterSeconds = expireAfterSeconds
    }
}
