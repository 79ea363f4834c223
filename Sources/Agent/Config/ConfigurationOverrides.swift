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
        var problems: [ConfigDiagnostic] = []
        func problem(_ option: String, _ message: String) {
            problems.append(ConfigDiagnostic(file: "command line", line: nil, column: nil, keyPath: option, message: message))
        }
        if let broker = overrides.broker {
            if let message = MQTTSettings.problem(withBroker: broker) {
                problem("--broker", message)
            } else {
                copy.mqtt.broker = broker
            }
        }
        if let id = overrides.deviceID {
            if DeviceSettings.isValid(id: id) {
                copy.device.id = id
            } else {
                problem("--device-id", "'\(id)' is not a valid device id; use 1…64 letters, digits, '_' or '-'")
            }
        }
        if let level = overrides.logLevel { copy.logging.level = level }
        guard problems.isEmpty else { throw ConfigError(kind: .invalid, diagnostics: problems) }
        return copy
    }
}
