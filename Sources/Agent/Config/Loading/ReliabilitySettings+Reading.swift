import Messaging

extension OutboxConfiguration {
    static let keys = ["max_bytes", "max_age_s", "inflight"]

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        maxBytes = reader.integer(section, "max_bytes", default: maxBytes, unit: "bytes", allowed: "4096 ≤ max_bytes ≤ 1073741824") {
            (4096...(1 << 30)).contains($0)
        }
        maxAgeSeconds = reader.double(section, "max_age_s", default: maxAgeSeconds, unit: "s", allowed: "0.1 ≤ max_age_s ≤ 86400") {
            $0 >= 0.1 && $0 <= 86400
        }
        inflight = reader.integer(section, "inflight", default: inflight, allowed: "1 ≤ inflight ≤ 20 (libmosquitto's in-flight limit)") {
            (1...20).contains($0)
        }
    }
}

extension SpoolConfiguration {
    static let keys = ["enabled", "max_bytes", "fsync", "fsync_interval_ms"]

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        enabled = reader.bool(section, "enabled", default: enabled)
        maxBytes = reader.integer(section, "max_bytes", default: maxBytes, unit: "bytes", allowed: "4096 ≤ max_bytes ≤ 1073741824") {
            (4096...(1 << 30)).contains($0)
        }
        let defaultInterval = if case .interval(let ms) = OutboxSettings.defaults.spoolFsync { ms } else { 1000 }
        let mode = reader.choice(section, "fsync", default: fsync.mode)
        let interval = reader.integer(section, "fsync_interval_ms", default: defaultInterval, unit: "ms",
                                      allowed: "10 ≤ fsync_interval_ms ≤ 60000") { (10...60000).contains($0) }
        fsync = SpoolFsyncPolicy(mode: mode, intervalMilliseconds: interval)
    }
}

extension ControlSettings {
    static let keys = ["enabled", "reply_topic_prefix"]

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        enabled = reader.bool(section, "enabled", default: enabled)
        replyTopicPrefix = reader.string(section, "reply_topic_prefix", default: replyTopicPrefix) { p in
            if p.utf8.count > 256 { return "at most 256 bytes" }
            if p.contains("+") || p.contains("#") || p.utf8.contains(0) { return "a topic prefix without wildcards (+, #) or NUL, e.g. clients/" }
            if p.hasPrefix("$") { return "must not start with $ (the broker's reserved topics)" }
            return nil
        }
    }
}

extension ProcessSettings {
    static let keys = ["stop_timeout_s", "stats_interval_s", "pipeline_threads"]

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        stopTimeoutSeconds = reader.double(section, "stop_timeout_s", default: stopTimeoutSeconds, unit: "s",
                                           allowed: "0.5 ≤ stop_timeout_s ≤ 300") { $0 >= 0.5 && $0 <= 300 }
        statsIntervalSeconds = reader.double(section, "stats_interval_s", default: statsIntervalSeconds, unit: "s",
                                             allowed: "0.5 ≤ stats_interval_s ≤ 3600") { $0 >= 0.5 && $0 <= 3600 }
        pipelineThreads = reader.integer(section, "pipeline_threads", default: pipelineThreads, unit: "threads", oneOf: [0, 1, 2])
    }
}

extension DebugSettings {
    static let keys = ["synthetic_events_per_minute"]

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        syntheticEventsPerMinute = reader.double(section, "synthetic_events_per_minute", default: syntheticEventsPerMinute,
                                                 unit: "per minute", allowed: "0 ≤ synthetic_events_per_minute ≤ 60000") {
            $0 >= 0 && $0 <= 60000
        }
    }
}
