extension ActivitySettings {
    static let keys = ["enabled", "history_days", "minimum_dwell_s", "vehicle_stop_timeout_s", "pedometer_interval_s",
                       "stride_m", "height_m"]

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        enabled = reader.bool(section, "enabled", default: enabled)
        historyDays = reader.double(section, "history_days", default: historyDays, unit: " days", allowed: "1 ≤ history_days ≤ 365") {
            $0 >= 1 && $0 <= 365
        }
        minimumDwell = reader.double(section, "minimum_dwell_s", default: minimumDwell, unit: " s", allowed: "0 ≤ minimum_dwell_s ≤ 600") {
            $0 >= 0 && $0 <= 600
        }
        vehicleStopTimeout = reader.double(section, "vehicle_stop_timeout_s", default: vehicleStopTimeout, unit: " s",
                                           allowed: "0 ≤ vehicle_stop_timeout_s ≤ 3600") { $0 >= 0 && $0 <= 3600 }
        pedometerInterval = reader.double(section, "pedometer_interval_s", default: pedometerInterval, unit: " s",
                                          allowed: "1 ≤ pedometer_interval_s ≤ 3600") { $0 >= 1 && $0 <= 3600 }
        strideLength = reader.optionalDouble(section, "stride_m", unit: " m", allowed: "0.2 ≤ stride_m ≤ 3") { $0 >= 0.2 && $0 <= 3 }
        height = reader.optionalDouble(section, "height_m", unit: " m", allowed: "0.5 ≤ height_m ≤ 2.5") { $0 >= 0.5 && $0 <= 2.5 }
    }
}
