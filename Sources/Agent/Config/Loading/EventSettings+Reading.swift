import MotionCore

extension EventSettings {
    static let keys = ["enabled", "tilt_cutoff_hz", "thresholds", "motion_threshold_ms2", "rotation_threshold_rads",
                       "stationary_s", "significant_s", "shock_g", "free_fall_g", "free_fall_min_s", "tap_g",
                       "tap_high_pass_hz", "double_tap_gap_s", "tamper_tilt_deg", "fall_detection", "orientation",
                       "orientation_deg", "orientation_dwell_s", "vibration", "chip_motion", "chip_engines"]
    enum ThresholdKeys { static let keys = ["above_deg", "below_deg", "dwell_s", "off_dwell_s", "on", "off", "device_class"] }
    enum VibrationKeys {
        static let keys = ["high_pass_hz", "window_s", "running_above_ms2", "idle_below_ms2", "on_dwell_s", "off_dwell_s",
                           "change_ratio", "bands", "spectrum"]
    }
    enum SpectrumKeys { static let keys = ["enabled", "interval_s", "length", "bins", "min_hz"] }

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        enabled = reader.bool(section, "enabled", default: enabled)
        chipMotion = reader.choice(section, "chip_motion", default: chipMotion)
        if section?["chip_engines"] != nil {
            let names = ChipEngine.allCases.map(\.rawValue).joined(separator: ", ")
            chipEngines = Set(reader.stringList(section, "chip_engines") {
                ChipEngine(rawValue: $0) == nil ? "unknown chip engine '\($0)'; use \(names)" : nil
            }.compactMap(ChipEngine.init(rawValue:)))
        }
        var c = MotionEventConfiguration()
        c.tiltCutoff = reader.double(section, "tilt_cutoff_hz", default: c.tiltCutoff, unit: " Hz", allowed: "0.05 ≤ tilt_cutoff_hz ≤ 20") { $0 >= 0.05 && $0 <= 20 }
        c.anyMotion.accelerationThreshold = reader.double(section, "motion_threshold_ms2", default: c.anyMotion.accelerationThreshold,
                                                          unit: " m/s²", allowed: "0.01 ≤ motion_threshold_ms2 ≤ 20") { $0 >= 0.01 && $0 <= 20 }
        c.anyMotion.rotationThreshold = reader.double(section, "rotation_threshold_rads", default: c.anyMotion.rotationThreshold,
                                                      unit: " rad/s", allowed: "0.005 ≤ rotation_threshold_rads ≤ 10") { $0 >= 0.005 && $0 <= 10 }
        c.anyMotion.stationaryDuration = reader.double(section, "stationary_s", default: c.anyMotion.stationaryDuration,
                                                       unit: " s", allowed: "0.1 ≤ stationary_s ≤ 3600") { $0 >= 0.1 && $0 <= 3600 }
        c.anyMotion.significantDuration = reader.double(section, "significant_s", default: c.anyMotion.significantDuration,
                                                        unit: " s", allowed: "0.5 ≤ significant_s ≤ 3600") { $0 >= 0.5 && $0 <= 3600 }
        c.shock.threshold = reader.double(section, "shock_g", default: c.shock.threshold, unit: " g", allowed: "1.2 ≤ shock_g ≤ 200") { $0 >= 1.2 && $0 <= 200 }
        c.freeFall.threshold = reader.double(section, "free_fall_g", default: c.freeFall.threshold, unit: " g", allowed: "0.05 ≤ free_fall_g ≤ 0.8") { $0 >= 0.05 && $0 <= 0.8 }
        c.freeFall.minimumDuration = reader.double(section, "free_fall_min_s", default: c.freeFall.minimumDuration, unit: " s",
                                                   allowed: "0.02 ≤ free_fall_min_s ≤ 10") { $0 >= 0.02 && $0 <= 10 }
        c.tap.threshold = reader.double(section, "tap_g", default: c.tap.threshold, unit: " g", allowed: "0.05 ≤ tap_g ≤ 50") { $0 >= 0.05 && $0 <= 50 }
        c.tap.highPassCutoff = reader.double(section, "tap_high_pass_hz", default: c.tap.highPassCutoff, unit: " Hz",
                                             allowed: "2 ≤ tap_high_pass_hz ≤ 500") { $0 >= 2 && $0 <= 500 }
        c.tap.doubleTapMaximumGap = reader.double(section, "double_tap_gap_s", default: c.tap.doubleTapMaximumGap, unit: " s",
                                                  allowed: "0.15 ≤ double_tap_gap_s ≤ 2") { $0 >= 0.15 && $0 <= 2 }
        c.tamper.tiltThreshold = reader.double(section, "tamper_tilt_deg", default: c.tamper.tiltThreshold, unit: "°",
                                               allowed: "0.5 ≤ tamper_tilt_deg ≤ 90") { $0 >= 0.5 && $0 <= 90 }
        if reader.bool(section, "fall_detection", default: false) { c.enabled.insert(.fall) }
        if reader.bool(section, "orientation", default: false) { c.enabled.insert(.orientation) }
        c.orientation.threshold = Double(reader.integer(section, "orientation_deg", default: Int(c.orientation.threshold), unit: "°",
                                                        oneOf: [50, 60, 70, 80]))
        c.orientation.dwell = reader.double(section, "orientation_dwell_s", default: c.orientation.dwell, unit: " s",
                                            allowed: "0 ≤ orientation_dwell_s ≤ 60") { $0 >= 0 && $0 <= 60 }
        readThresholds(section, into: &c, with: &reader)
        let v = reader.section(section?["vibration"], path: "events.vibration", keys: VibrationKeys.keys)
        c.vibration.highPassCutoff = reader.double(v, "high_pass_hz", default: c.vibration.highPassCutoff, unit: " Hz",
                                                   allowed: "1 ≤ high_pass_hz ≤ 500") { $0 >= 1 && $0 <= 500 }
        c.vibration.window = reader.double(v, "window_s", default: c.vibration.window, unit: " s", allowed: "0.1 ≤ window_s ≤ 60") { $0 >= 0.1 && $0 <= 60 }
        c.vibration.runningAbove = reader.double(v, "running_above_ms2", default: c.vibration.runningAbove, unit: " m/s²",
                                                 allowed: "0.001 ≤ running_above_ms2 ≤ 100") { $0 >= 0.001 && $0 <= 100 }
        c.vibration.idleBelow = reader.double(v, "idle_below_ms2", default: c.vibration.idleBelow, unit: " m/s²",
                                              allowed: "0.001 ≤ idle_below_ms2 ≤ 100") { $0 >= 0.001 && $0 <= 100 }
        c.vibration.onDwell = reader.double(v, "on_dwell_s", default: c.vibration.onDwell, unit: " s", allowed: "0 ≤ on_dwell_s ≤ 3600") { $0 >= 0 && $0 <= 3600 }
        c.vibration.offDwell = reader.double(v, "off_dwell_s", default: c.vibration.offDwell, unit: " s", allowed: "0 ≤ off_dwell_s ≤ 3600") { $0 >= 0 && $0 <= 3600 }
        c.vibration.changeRatio = reader.double(v, "change_ratio", default: c.vibration.changeRatio, allowed: "1.5 ≤ change_ratio ≤ 100") { $0 >= 1.5 && $0 <= 100 }
        readBands(v, into: &c, with: &reader)
        let sp = reader.section(v?["spectrum"], path: "events.vibration.spectrum", keys: SpectrumKeys.keys)
        c.vibration.spectrum.enabled = reader.bool(sp, "enabled", default: c.vibration.spectrum.enabled)
        c.vibration.spectrum.interval = reader.double(sp, "interval_s", default: c.vibration.spectrum.interval, unit: " s",
                                                      allowed: "1 ≤ interval_s ≤ 3600") { $0 >= 1 && $0 <= 3600 }
        c.vibration.spectrum.length = reader.integer(sp, "length", default: c.vibration.spectrum.length, unit: " samples",
                                                     oneOf: [64, 128, 256, 512, 1024, 2048, 4096])
        c.vibration.spectrum.bins = reader.integer(sp, "bins", default: c.vibration.spectrum.bins, allowed: "1 ≤ bins ≤ 64") { $0 >= 1 && $0 <= 64 }
        c.vibration.spectrum.lowestFrequency = reader.double(sp, "min_hz", default: c.vibration.spectrum.lowestFrequency, unit: " Hz",
                                                             allowed: "0.1 ≤ min_hz ≤ 1000") { $0 >= 0.1 && $0 <= 1000 }
        if section != nil, let problem = c.validationError() { reader.report("events", at: section?.mark, problem) }
        detectors = c
    }

    /// `thresholds: {door: {above_deg: 60, below_deg: 20, dwell_s: 1, on: open, off: closed, device_class: door}}`
    private mutating func readThresholds(_ section: ConfigSection?, into c: inout MotionEventConfiguration, with reader: inout ConfigReader) {
        guard let section, let node = section["thresholds"], !node.isNull else { return }
        guard case .mapping(let pairs) = node.content else {
            reader.report("events.thresholds", at: node.mark, "expected a mapping of named thresholds, e.g. door: {above_deg: 60, below_deg: 20}, found \(node.summary)")
            return
        }
        for pair in pairs {
            guard let name = pair.key.scalar, !name.isEmpty,
                  name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                reader.report("events.thresholds", at: pair.key.mark, "threshold names are words (letters, digits, _ and -), found \(pair.key.summary)")
                continue
            }
            let path = "events.thresholds." + name
            guard let t = reader.section(pair.value, path: path, keys: ThresholdKeys.keys) else {
                reader.report(path, at: pair.value.mark, "expected above_deg and below_deg")
                continue
            }
            guard let above = reader.optionalDouble(t, "above_deg", unit: "°", allowed: "0 ≤ above_deg ≤ 180", { $0 >= 0 && $0 <= 180 }) else {
                if t["above_deg"] == nil { reader.report(path, at: t.mark, "above_deg is required (degrees from the zero pose that turn it on)") }
                continue
            }
            let below = reader.double(t, "below_deg", default: above, unit: "°", allowed: "0 ≤ below_deg ≤ above_deg (\(above))") { $0 >= 0 && $0 <= above }
            let dwell = reader.double(t, "dwell_s", default: 1, unit: " s", allowed: "0 ≤ dwell_s ≤ 3600") { $0 >= 0 && $0 <= 3600 }
            let offDwell = reader.double(t, "off_dwell_s", default: dwell, unit: " s", allowed: "0 ≤ off_dwell_s ≤ 3600") { $0 >= 0 && $0 <= 3600 }
            let on = reader.string(t, "on", default: "on"), off = reader.string(t, "off", default: "off")
            // Home Assistant rejects a binary sensor whose device class it does not know.
            let deviceClass = reader.optionalChoice(t, "device_class", oneOf: EventSettings.homeAssistantDeviceClasses)
            c.tiltThresholds.append(TiltThreshold(name: name, onAbove: above, offBelow: below, onDwell: dwell, offDwell: offDwell,
                                                  onName: on, offName: off))
            deviceClasses.append(deviceClass)
        }
    }

    /// The highest band edge accepted: half the highest `source.rate` (10 000 Hz). A band above it
    /// can never hold a frequency any source delivers.
    static let highestBandEdgeHz = 5000.0

    /// `bands: {drum: [15, 40], motor: [60, 90]}` (Hz).
    private func readBands(_ section: ConfigSection?, into c: inout MotionEventConfiguration, with reader: inout ConfigReader) {
        guard let section, let node = section["bands"], !node.isNull else { return }
        guard case .mapping(let pairs) = node.content else {
            reader.report("events.vibration.bands", at: node.mark, "expected named bands, e.g. drum: [15, 40] (Hz), found \(node.summary)")
            return
        }
        for pair in pairs {
            let name = pair.key.scalar ?? ""
            let path = "events.vibration.bands." + name
            guard case .sequence(let items) = pair.value.content, items.count == 2,
                  let low = items[0].scalar.flatMap(ScalarSyntax.double), let high = items[1].scalar.flatMap(ScalarSyntax.double),
                  low > 0, high > low, high <= Self.highestBandEdgeHz else {
                reader.report(path, at: pair.value.mark,
                              "expected [low, high] in Hz with 0 < low < high ≤ \(Int(Self.highestBandEdgeHz)) (half the highest source.rate), found \(pair.value.summary)")
                continue
            }
            guard c.vibration.bands.count < VibrationReading.maximumBands else {
                reader.report(path, at: pair.key.mark, "at most \(VibrationReading.maximumBands) bands")
                continue
            }
            c.vibration.bands.append(VibrationBand(name: name, low: low, high: high))
        }
    }
}
