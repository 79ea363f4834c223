import Messaging
/// `mqtt:` — the broker connection and topic layout.
public struct MQTTSettings: Sendable, Equatable {
    /// Values `protocol` accepts.
    public static let protocols = ["3.1.1", "5"]
    /// The placeholder `topic_prefix` may contain.
    public static let deviceIDPlaceholder = "{device_id}"

    /// `broker`: `mqtt://host[:port]` (1883), `mqtts://host[:port]` (8883, TLS) or
    /// `tcp://host[:port]`; `nil` means no broker configured. See `brokerAddress`.
    public var broker: String?
    /// `client_id`: MQTT client identifier; `nil` lets the agent derive one from the device id.
    public var clientID: String?
    /// `keepalive`: seconds between keep-alive pings, 5…65535.
    public var keepAlive: Int
    /// `topic_prefix`: prefix of every topic, may contain `{device_id}` (see
    /// `resolvedTopicPrefix(deviceID:)`). No `+`, `#`, or leading/trailing `/`.
    public var topicPrefix: String
    /// `username`.
    public var username: String?
    /// `password` (prefer `password_file`).
    public var password: String?
    /// `password_file`: path of a file whose first line is the password.
    public var passwordFile: String?
    /// `tls`: TLS options; `nil` means plain TCP unless the broker URL is `mqtts://`.
    public var tls: MQTTTLSOptions?
    /// `protocol`: MQTT protocol version, `3.1.1` or `5`.
    public var `protocol`: String
    /// `fallback_brokers`: further broker URLs (same syntax as `broker`) tried in order when the
    /// current one has been unreachable for `failover_after_s`; the agent stays on whichever works
    /// (sticky) and only moves on when that one fails. Empty: no failover.
    public var fallbackBrokers: [String] = []
    /// `failover_after_s`: seconds without a connection before the next broker is tried. 1 … 3600.
    public var failoverAfterSeconds: Double = 30
    /// `reconnect_max_s`: cap of the reconnect backoff, seconds. After the broker comes back the
    /// agent reconnects within this time (a random wait in [c/2, c], the ceiling c rising 0.1,
    /// 0.2, 0.5, 1, 2, 5 s … up to this cap). Default 3, below `outbox.max_age_s` (30) so a
    /// broker restart does not expire queued batches. 1 … 3600.
    public var reconnectMaxSeconds: Double = 3

    public init(
        broker: String? = nil,
        clientID: String? = nil,
        keepAlive: Int = 30,
        topicPrefix: String = "edgemotion/{device_id}",
        username: String? = nil,
        password: String? = nil,
        passwordFile: String? = nil,
        tls: MQTTTLSOptions? = nil,
        protocol: String = "3.1.1"
    ) {
        self.broker = broker
        self.clientID = clientID
        self.keepAlive = keepAlive
        self.topicPrefix = topicPrefix
        self.username = username
        self.password = password
        self.passwordFile = passwordFile
        self.tls = tls
        self.protocol = `protocol`
    }

    /// `topicPrefix` with every `{device_id}` replaced by `deviceID`.
    public func resolvedTopicPrefix(deviceID: String) -> String {
        topicPrefix.replacing(MQTTSettings.deviceIDPlaceholder, with: deviceID)
    }

    /// `clientID`, or `edgemotion-<deviceID>` when none is configured.
    public func resolvedClientID(deviceID: String) -> String {
        clientID ?? "edgemotion-" + deviceID
    }
}
