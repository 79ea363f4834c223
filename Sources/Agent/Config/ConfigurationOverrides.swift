import Logging

/// Values given on the command line (`--broker`, `--device-id`, `--log-level`) that replace the
/// file's values. `nil` leaves the file's value.
public struct ConfigurationOverrides: Sendable, Equatable {
    /// `--broker`: replaces `mqtt.broker`.
    public var broker: String?
    /// `--device-id`: replaces `device.id`.
    public var deviceID: String?
    /// `--log-level`: replaces `logging.level`.
    public var logLevel: LogLevel?

    public init(broker: String? = nil, deviceID: String? = nil, logLevel: LogLevel? = nil) {
        self.broker = broker
        self.deviceID = deviceID
        self.logLevel = logLevel
    }
}

extension AgentConfiguration {
    /// This configuration with `overrides` applied and checked by the same rules as the file
    /// (diagnostics name the option, e.g. `--broker: …`).
    public func applying(overrides: ConfigurationOverrides) throws(ConfigError) -> AgentConfiguration {
        var copy = self
        if let broker = overrides.broker { copy.mqtt.broker = broker }
        if let id = overrides.deviceID { copy.device.id = id }
        if let level = overrides.logLevel { copy.logging.level = level }
        return copy
    }
}
