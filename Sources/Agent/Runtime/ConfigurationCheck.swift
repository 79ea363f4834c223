import Messaging

/// The one validation `check-config`, `run` and a SIGHUP reload share: the file's key checks
/// (`ConfigurationLoader`), the command-line overrides, then what the agent builds from the
/// configuration before it connects — the topic layout and the MQTT connection options of every
/// broker (`TopicLayout`, `MQTTConnectionOptions.validate`: lengths, credentials, the will topic)
/// — so nothing `check-config` passes is refused by `run` afterwards (a 1 MB `topic_prefix` or
/// password is refused by all three, naming the key), and the learned mount file when
/// `source.mount` uses it (a damaged one is refused naming its file and line).
public enum ConfigurationCheck {
    /// Loads `path` (the regular file it names), applies `overrides` and checks it as `run` will.
    public static func load(path: String, overrides: ConfigurationOverrides = ConfigurationOverrides()) throws(ConfigError) -> AgentConfiguration {
        let c = try ConfigurationLoader.load(path: path).applying(overrides: overrides)
        try check(c, file: path)
        return c
    }

    /// The start-up checks on an already loaded configuration; throws `.invalid` naming the key.
    public static func check(_ c: AgentConfiguration, file: String) throws(ConfigError) {
        var problems: [ConfigDiagnostic] = []
        func report(_ key: String, _ message: String) {
            problems.append(ConfigDiagnostic(file: file, line: nil, column: nil, keyPath: key, message: message))
        }
        let prefix = c.mqtt.resolvedTopicPrefix(deviceID: c.device.resolvedID())
        var statusTopic = "edgemotion/status"
        do {
            statusTopic = try TopicLayout(prefix: prefix).status
        } catch {
            report("mqtt.topic_prefix", "\(error)")
        }
        for url in AgentRunner.brokerURLs(c) {
            do {
                try c.connectionOptions(brokerURL: url, statusTopic: statusTopic).validate()
            } catch {
                report(url == c.mqtt.broker ? "mqtt" : "mqtt.fallback_brokers", "\(error)")
            }
        }
        problems += MountSetup.diagnostics(c)
        guard problems.isEmpty else { throw ConfigError(kind: .invalid, diagnostics: problems) }
    }
}

extension AgentConfiguration {
    /// The MQTT connection options for `brokerURL` (the password read from `password_file` if
    /// set), as the agent connects with them.
    func connectionOptions(brokerURL: String, statusTopic: String) throws -> MQTTConnectionOptions {
        let m = mqtt
        let address = try MQTTBrokerAddress(url: brokerURL)
        var password = m.password
        if let file = m.passwordFile {
            password = try PasswordFile.read(file)
        }
        var options = MQTTConnectionOptions(
            address: address, clientID: m.clientID ?? "edgemotion-" + device.resolvedID(), keepAlive: m.keepAlive,
            cleanSession: true, username: m.username, password: password,
            will: MQTTMessage(topic: statusTopic, string: "offline", qos: 1, retain: true),
            tls: m.tls, protocolVersion: m.protocol == "5" ? .v5 : .v311)
        options.reconnect.maxDelay = .milliseconds(Int64(m.reconnectMaxSeconds * 1000))
        return options
    }
}
