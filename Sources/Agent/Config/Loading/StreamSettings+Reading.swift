extension StreamSettingsSet {
    static let keys = ["accelerometer", "gyroscope", "magnetometer", "motion", "latest_interval_s"]

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        let p = section?.path ?? "streams"
        func read(_ key: String, _ defaults: StreamSettings, _ reader: inout ConfigReader) -> StreamSettings {
            StreamSettings(reading: reader.section(section?[key], path: p + "." + key, keys: StreamSettings.keys), defaults: defaults, with: &reader)
        }
        accelerometer = read("accelerometer", accelerometer, &reader)
        gyroscope = read("gyroscope", gyroscope, &reader)
        magnetometer = read("magnetometer", magnetometer, &reader)
        motion = read("motion", motion, &reader)
        latestInterval = reader.double(section, "latest_interval_s", default: latestInterval, unit: " s",
                                       allowed: "0 (off) or 0.1 ≤ latest_interval_s ≤ 3600") { $0 == 0 || ($0 >= 0.1 && $0 <= 3600) }
    }
}

extension StreamSettings {
    static let keys = ["enabled", "rate", "publish_rate", "qos", "retain", "format"]

    init(reading section: ConfigSection?, defaults: StreamSettings, with reader: inout ConfigReader) {
        self = defaults
        enabled = reader.bool(section, "enabled", default: enabled)
        rate = reader.double(section, "rate", default: rate, unit: "Hz", allowed: StreamSettings.rateRange,
                             StreamSettings.isAllowedRate)
        publishRate = reader.double(section, "publish_rate", default: publishRate, unit: "Hz", allowed: StreamSettings.publishRateRange,
                                    StreamSettings.isAllowedPublishRate)
        qos = reader.integer(section, "qos", default: qos, allowed: "0, 1 or 2") { (0...2).contains($0) }
        retain = reader.bool(section, "retain", default: retain)
        format = reader.choice(section, "format", default: format)
    }
}
