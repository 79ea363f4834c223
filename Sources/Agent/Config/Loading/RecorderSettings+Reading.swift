extension RecorderSettings {
    static let keys = ["enabled", "directory", "max_file_mb", "max_file_minutes", "max_total_mb", "max_age_days"]

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        enabled = reader.bool(section, "enabled", default: enabled)
        directory = reader.optionalString(section, "directory")
        maxFileMB = reader.integer(section, "max_file_mb", default: maxFileMB, unit: "MiB",
                                   allowed: "1 ≤ max_file_mb ≤ 4096") { (1...4096).contains($0) }
        maxFileMinutes = reader.double(section, "max_file_minutes", default: maxFileMinutes, unit: "min",
                                       allowed: "1 ≤ max_file_minutes ≤ 1440") { $0 >= 1 && $0 <= 1440 }
        maxTotalMB = reader.integer(section, "max_total_mb", default: maxTotalMB, unit: "MiB",
                                    allowed: "1 ≤ max_total_mb ≤ 1048576") { (1...1_048_576).contains($0) }
        maxAgeDays = reader.double(section, "max_age_days", default: maxAgeDays, unit: "days",
                                   allowed: "0 ≤ max_age_days ≤ 3650 (0 = no age limit)") { $0 >= 0 && $0 <= 3650 }
        if maxTotalMB < maxFileMB, section?["max_total_mb"] != nil || section?["max_file_mb"] != nil {
            reader.report(section?.path("max_total_mb") ?? "recorder.max_total_mb",
                          "\(maxTotalMB) MiB is below max_file_mb (\(maxFileMB) MiB): the file being written would not fit; raise max_total_mb or lower max_file_mb")
        }
    }
}

extension AgentConfiguration {
    /// While running, the recorder records the accelerometer stream's batches.
    func checkRecorder(with reader: inout ConfigReader) {
        if recorder.enabled, !streams.accelerometer.enabled {
            reader.report("recorder.enabled", "the recorder records the accelerometer stream's samples (all sensors), which streams.accelerometer.enabled turns off; enable it (rate: 0 records at the source rate)")
        }
    }
}
