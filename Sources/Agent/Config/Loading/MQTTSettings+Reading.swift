import Messaging
extension MQTTSettings {
    static let keys = ["broker", "client_id", "keepalive", "topic_prefix", "username", "password", "password_file", "tls", "protocol",
                       "fallback_brokers", "failover_after_s", "reconnect_max_s"]

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        broker = reader.optionalString(section, "broker", MQTTSettings.problem(withBroker:))
        clientID = reader.optionalString(section, "client_id") { id in
            id.utf8.count > 65535 ? "client_id is too long (at most 65535 bytes)" : nil
        }
        if let section, let node = section["keepalive"], node.scalar.flatMap(ScalarSyntax.integer) == 0 {
            reader.report(section.path("keepalive"), at: node.mark,
                          "0 would switch keep-alive off, so a dead connection would never be noticed; use 5…65535 seconds (default 30)")
        } else {
            keepAlive = reader.integer(section, "keepalive", default: keepAlive, unit: "s", allowed: "5 ≤ keepalive ≤ 65535 seconds") {
                (5...65535).contains($0)
            }
        }
        topicPrefix = reader.string(section, "topic_prefix", default: topicPrefix, MQTTSettings.problem(withTopicPrefix:))
        username = reader.optionalString(section, "username")
        password = reader.optionalString(section, "password")
        passwordFile = reader.optionalString(section, "password_file")
        if let t = reader.section(section?["tls"], path: (section?.path ?? "mqtt") + ".tls", keys: MQTTTLSOptions.keys) {
            tls = MQTTTLSOptions(reading: t, with: &reader)
        }
        self.protocol = reader.choice(section, "protocol", default: self.protocol, oneOf: MQTTSettings.protocols)
        fallbackBrokers = reader.stringList(section, "fallback_brokers", MQTTSettings.problem(withBroker:))
        failoverAfterSeconds = reader.double(section, "failover_after_s", default: failoverAfterSeconds, unit: "s",
                                             allowed: "1 ≤ failover_after_s ≤ 3600") { $0 >= 1 && $0 <= 3600 }
        reconnectMaxSeconds = reader.double(section, "reconnect_max_s", default: reconnectMaxSeconds, unit: "s",
                                            allowed: "1 ≤ reconnect_max_s ≤ 3600") { $0 >= 1 && $0 <= 3600 }
    }

    /// Why `prefix` is not a usable topic prefix, or `nil`.
    static func problem(withTopicPrefix prefix: String) -> String? {
        if prefix.contains("+") || prefix.contains("#") {
            return "'\(prefix)' contains a wildcard ('+' or '#'), which is not allowed in a topic one publishes to"
        }
        if prefix.hasPrefix("/") || prefix.hasSuffix("/") {
            return "'\(prefix)' starts or ends with '/'; write it without, e.g. edgemotion/{device_id} (the agent adds '/' before each stream)"
        }
        if prefix.contains("//") {
            return "'\(prefix)' has an empty level ('//'); remove the extra '/'"
        }
        var rest = Substring(prefix)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else {
                return "'\(prefix)' has a '{' without '}'; the only placeholder is {device_id}"
            }
            let name = rest[open...close]
            if name != MQTTSettings.deviceIDPlaceholder {
                return "unknown placeholder '\(name)'; the only placeholder is {device_id}"
            }
            rest = rest[rest.index(after: close)...]
        }
        if rest.contains("}") { return "'\(prefix)' has a '}' without '{'; the only placeholder is {device_id}" }
        return nil
    }
}

extension MQTTTLSOptions {
    /// Keys of `mqtt.tls:`.
    static let keys = ["ca_file", "ca_path", "cert_file", "key_file", "version", "ciphers", "insecure"]

    init(reading section: ConfigSection, with reader: inout ConfigReader) {
        self.init()
        caFile = reader.optionalString(section, "ca_file")
        caPath = reader.optionalString(section, "ca_path")
        certFile = reader.optionalString(section, "cert_file")
        keyFile = reader.optionalString(section, "key_file")
        version = reader.optionalChoice(section, "version", of: MQTTTLSVersion.self)
        ciphers = reader.optionalString(section, "ciphers")
        insecure = reader.bool(section, "insecure", default: insecure)
    }
}
