extension HomeAssistantSettings {
    static let keys = ["enabled", "discovery_prefix", "summary_rate", "angle_deadband_deg", "heartbeat_s", "expire_after_s", "configuration_url"]

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        enabled = reader.bool(section, "enabled", default: enabled)
        discoveryPrefix = reader.string(section, "discovery_prefix", default: discoveryPrefix) { prefix in
            let levels = prefix.split(separator: "/", omittingEmptySubsequences: false)
            if levels.contains(where: \.isEmpty) { return "topic levels must not be empty (no leading, trailing or doubled '/')" }
            if prefix.contains(where: { $0 == "+" || $0 == "#" }) { return "must not contain the wildcards '+' or '#'" }
            return nil
        }
        summaryRate = reader.double(section, "summary_rate", default: summaryRate, unit: "Hz",
                                    allowed: "0 < summary_rate ≤ 1 (Home Assistant records every state)") { $0 > 0 && $0 <= 1 }
        angleDeadbandDegrees = reader.double(section, "angle_deadband_deg", default: angleDeadbandDegrees, unit: "°",
                                             allowed: "0 ≤ angle_deadband_deg ≤ 90") { $0 >= 0 && $0 <= 90 }
        heartbeatSeconds = reader.double(section, "heartbeat_s", default: heartbeatSeconds, unit: "s",
                                         allowed: "1 ≤ heartbeat_s ≤ 86400") { $0 >= 1 && $0 <= 86_400 }
        expireAfterSeconds = reader.integer(section, "expire_after_s", default: expireAfterSeconds, unit: "s",
                                            allowed: "0 (never) or heartbeat_s < expire_after_s ≤ 86400") { $0 >= 0 && $0 <= 86_400 }
        configurationURL = reader.optionalString(section, "configuration_url") { url in
            let lower = url.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), url.count > 8, url.count <= 2048,
                  !url.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } ?? false }) else {
                return "expected an http:// or https:// URL without spaces, e.g. http://board-7.local:8080/"
            }
            return nil
        }
        if enabled, expireAfterSeconds > 0, Double(expireAfterSeconds) <= heartbeatSeconds {
            reader.report(section?.path("expire_after_s") ?? "home_assistant.expire_after_s",
                          "\(expireAfterSeconds) s is not above heartbeat_s (\(heartbeatSeconds) s): entities would flap to unavailable between heartbeats; raise it or set 0")
        }
    }
}

extension AgentConfiguration {
    /// `home_assistant` needs the `motion` stream: the summary is computed from its batches.
    func checkHomeAssistant(with reader: inout ConfigReader) {
        if homeAssistant.enabled, !streams.motion.enabled {
            reader.report("home_assistant.enabled", "Home Assistant's roll, pitch, heading and moving come from the motion stream, which streams.motion.enabled turns off; enable it (a low rate such as 10 Hz is enough)")
        }
    }
}
