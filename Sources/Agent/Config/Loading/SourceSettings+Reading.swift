import Sensors
extension SourceSettings {
    static let keys = ["type", "rate", "simulator", "replay", "iio", "i2c", "data_ready", "retry_max_s", "mount"]

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        let p = section?.path ?? "source"
        kind = reader.choice(section, "type", default: kind)
        rate = reader.double(section, "rate", default: rate, unit: "Hz", allowed: "0 < rate ≤ 10000") {
            $0 > 0 && $0 <= SourceSettings.maximumRate
        }
        retryMaxSeconds = reader.double(section, "retry_max_s", default: retryMaxSeconds, unit: "s",
                                        allowed: "0.5 ≤ retry_max_s ≤ 3600") { $0 >= 0.5 && $0 <= 3600 }
        simulator = SimulatorSettings(reading: reader.section(section?["simulator"], path: p + ".simulator", keys: SimulatorSettings.keys), with: &reader)
        replay = ReplaySettings(reading: reader.section(section?["replay"], path: p + ".replay", keys: ReplaySettings.keys), with: &reader)
        iio = IIOSettings(reading: reader.section(section?["iio"], path: p + ".iio", keys: IIOSettings.keys), with: &reader)
        i2c = I2CSettings(reading: reader.section(section?["i2c"], path: p + ".i2c", keys: I2CSettings.keys), with: &reader)
        if let dr = reader.section(section?["data_ready"], path: p + ".data_ready", keys: DataReadySettings.keys) {
            dataReady = DataReadySettings(reading: dr, with: &reader)
        }
        if let m = reader.section(section?["mount"], path: p + ".mount", keys: MountSettings.keys) {
            mount = MountSettings(reading: m, with: &reader)
        }
    }
}

extension SimulatorSettings {
    static let keys = ["scenario", "seed", "real_time", "magnetometer", "gyroscope", "gyro_bias_dps", "noise", "burst"]

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        // One scenario, or a timeline of them: `walking:60,running:60,stationary` (seconds per segment).
        scenario = reader.string(section, "scenario", default: scenario) { text in
            SimulationScenario(named: text) == nil
                ? "'\(text)' is not a scenario; use one of \(SimulatorSettings.scenarios.joined(separator: ", ")), or a timeline such as walking:60,running:60,stationary"
                : nil
        }
        seed = reader.unsigned(section, "seed", default: seed)
        realTime = reader.bool(section, "real_time", default: realTime)
        magnetometer = reader.bool(section, "magnetometer", default: magnetometer)
        gyroscope = reader.bool(section, "gyroscope", default: gyroscope)
        gyroBiasDegreesPerSecond = reader.double(section, "gyro_bias_dps", default: gyroBiasDegreesPerSecond,
                                                 unit: "°/s", allowed: "-100 ≤ gyro_bias_dps ≤ 100") { abs($0) <= 100 }
        noise = reader.bool(section, "noise", default: noise)
        burst = reader.integer(section, "burst", default: burst, unit: "samples",
                               allowed: "0 (auto) ≤ burst ≤ \(SimulatorSettings.maximumBurst)") {
            (0...SimulatorSettings.maximumBurst).contains($0)
        }
    }
}

extension ReplaySettings {
    static let keys = ["file", "speed", "loop"]

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        file = reader.optionalString(section, "file")
        speed = reader.choice(section, "speed", default: speed)
        loop = reader.bool(section, "loop", default: loop)
    }
}

extension IIOSettings {
    static let keys = ["uri", "device", "devices", "trigger", "buffer", "buffer_length"]

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        uri = reader.string(section, "uri", default: uri)
        device = reader.optionalString(section, "device")
        devices = reader.stringList(section, "devices")
        if !devices.isEmpty, device != nil, let section, let node = section["devices"] {
            reader.report(section.path("devices"), at: node.mark, "set either device (one device and its siblings) or devices (exactly these), not both")
        }
        trigger = reader.choice(section, "trigger", default: trigger, oneOf: IIOSettings.triggers)
        buffer = reader.bool(section, "buffer", default: buffer)
        bufferLength = reader.integer(section, "buffer_length", default: bufferLength, unit: "samples",
                                      allowed: "1 ≤ buffer_length ≤ 65536") { (1...65536).contains($0) }
    }
}

extension I2CSettings {
    static let keys = ["bus", "address", "chip", "accel_range_g", "gyro_range_dps", "lowpass_hz", "fifo", "fifo_watermark"]

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        bus = reader.integer(section, "bus", default: bus, allowed: "0 ≤ bus ≤ 255 (N in /dev/i2c-N)") { (0...255).contains($0) }
        address = reader.integer(section, "address", default: address,
                                 allowed: "0x03 ≤ address ≤ 0x77 (7-bit address, e.g. 0x68)") { (0x03...0x77).contains($0) }
        chip = reader.choice(section, "chip", default: chip, oneOf: I2CSettings.chips)
        accelRangeG = reader.integer(section, "accel_range_g", default: accelRangeG, unit: "g", oneOf: I2CSettings.accelRanges)
        gyroRangeDPS = reader.integer(section, "gyro_range_dps", default: gyroRangeDPS, unit: "°/s", oneOf: I2CSettings.gyroRanges)
        lowPassHz = reader.optionalDouble(section, "lowpass_hz", unit: "Hz", allowed: "0 < lowpass_hz ≤ 5000") { $0 > 0 && $0 <= 5000 }
        fifo = reader.bool(section, "fifo", default: fifo)
        fifoWatermark = reader.integer(section, "fifo_watermark", default: fifoWatermark, unit: "samples",
                                       allowed: "1 ≤ fifo_watermark ≤ 40") { (1...40).contains($0) }
    }
}

extension DataReadySettings {
    static let keys = ["chip", "line"]

    init(reading section: ConfigSection, with reader: inout ConfigReader) {
        let chip = reader.optionalString(section, "chip")
        let line = reader.optionalString(section, "line")
        if chip == nil, section["chip"] == nil {
            reader.report(section.path("chip"), at: section.mark, "required: the GPIO chip's name or label (e.g. gpiochip0), or remove data_ready to pace samples by a timer")
        }
        if line == nil, section["line"] == nil {
            reader.report(section.path("line"), at: section.mark, "required: the line offset (e.g. 17) or line name (e.g. GPIO17) wired to the sensor's data-ready pin")
        }
        self.init(chip: chip ?? "", line: line ?? "")
    }
}
