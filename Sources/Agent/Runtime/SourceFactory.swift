import EdgeMotion
import MotionCore
import Sensors

/// Builds the configured `IMUSource`.
enum SourceFactory {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `streams` sizes the simulator's automatic burst (`source.simulator.burst: 0`).
    static func makeSource(_ settings: SourceSettings, configurationFile: String?, streams: StreamSettingsSet) throws -> any IMUSource {
        switch settings.kind {
        case .simulator:
            let s = settings.simulator
            guard let scenario = SimulationScenario(named: s.scenario) else {
                throw Failure(description: "source.simulator.scenario: unknown scenario '\(s.scenario)'; use one of \(SimulationScenario.names.joined(separator: ", "))")
            }
            let bias = s.gyroBiasDegreesPerSecond.radians
            return SimulatedIMU(options: SimulatorOptions(
                scenario: scenario, seed: s.seed, realTime: s.realTime,
                includeGyroscope: s.gyroscope, includeMagnetometer: s.magnetometer,
                gyroBias: Vector3(bias, -0.6 * bias, 0.4 * bias), noise: s.noise,
                burstSize: s.effectiveBurst(sourceRate: settings.rate, streams: streams)))
        case .replay:
            guard let file = settings.replay.file else {
                throw Failure(description: "source.replay.file: a replay source needs a recording; set source.replay.file")
            }
            let path = resolve(file, relativeTo: configurationFile)
            if let problem = loopProblem(settings) { throw Failure(description: problem) }
            if path.hasSuffix("." + RecordingFormat.fileExtension) {
                return try RecordedFileSource(path: path, asFastAsPossible: settings.replay.speed == .max)
            }
            return try ReplaySource(path: path, speed: settings.replay.speed == .max ? .asFastAsPossible : .recorded,
                                    loop: settings.replay.loop)
        case .iio:
            let s = settings.iio
            return IIOSource(uri: s.uri, device: s.device, devices: s.devices, trigger: s.trigger, useBuffer: s.buffer, bufferLength: s.bufferLength)
        case .i2c:
            let s = settings.i2c
            guard let chip = IMUChipModel(rawValue: s.chip) else {
                throw Failure(description: "source.i2c.chip: unknown chip '\(s.chip)'; use one of \(IMUChipModel.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return I2CIMUSource(bus: s.bus, address: UInt16(s.address), chip: chip,
                                accelRangeG: Double(s.accelRangeG), gyroRangeDPS: Double(s.gyroRangeDPS), lowpassHz: s.lowPassHz,
                                dataReady: settings.dataReady.map { DataReadyLine.Configuration(chip: $0.chip, line: $0.line) },
                                fifo: s.fifo ? FIFOOptions(watermark: s.fifoWatermark) : nil,
                                motionInterrupt: settings.chipMotionThresholdMS2.map {
                                    MotionInterruptSettings(thresholdMS2: $0, duration: settings.chipMotionDuration)
                                },
                                freeFallInterrupt: settings.chipFreeFall, tapInterrupt: settings.chipTap,
                                orientationInterrupt: settings.chipOrientation)
        }
    }

    /// `loop` on an `.emr` recording (which plays once), said instead of ignored.
    static func loopProblem(_ settings: SourceSettings) -> String? {
        guard settings.kind == .replay, settings.replay.loop,
              settings.replay.file?.hasSuffix("." + RecordingFormat.fileExtension) == true else { return nil }
        return "source.replay.loop: looping works for CSV recordings only; an .emr recording plays once (export it with 'edgemotion recordings export' to loop it)"
    }

    /// Relative paths in a config file are relative to the directory the agent runs in; a path
    /// that does not exist there is tried relative to the config file's directory.
    static func resolve(_ path: String, relativeTo configurationFile: String?) -> String {
        guard !path.hasPrefix("/"), let config = configurationFile else { return path }
        var st = stat()
        if stat(path, &st) == 0 { return path }
        let dir = config.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return dir.isEmpty ? path : dir + "/" + path
    }
}

#if canImport(Glibc)
import Glibc
#endif
