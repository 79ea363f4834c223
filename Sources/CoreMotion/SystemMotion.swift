import Foundation
internal import EdgeMotion
internal import Agent
internal import MotionCore
internal import Sensors

/// Which IMU the Core Motion classes use, decided once per process, shared by every manager
/// (one pipeline for all of them, like the one motion coprocessor of an iPhone):
///
/// 1. `EDGEMOTION_SOURCE`: `simulator:SCENARIO` (`simulator:walking`, a timeline
///    `simulator:walking:60,stationary`, `simulator:shielded`: at rest in a magnetic shield), `replay:PATH` (a recording), `iio:NAME` (an IIO device
///    name, label or index), `i2c:BUS:ADDR:CHIP` (`i2c:1:0x68:mpu6050`);
/// 2. the agent's system configuration file, `EDGEMOTION_CONFIG` or
///    `/etc/edgemotion/edgemotion.yaml` (its `source:` and `fusion:` sections, as `edgemotion run`
///    opens them);
/// 3. what `edgemotion probe` would find first: an IIO device with an accelerometer;
/// 4. nothing: every `is…Available` is false, as on a device without those sensors.
///
/// `EDGEMOTION_LATITUDE` / `EDGEMOTION_LONGITUDE` (degrees) give the location for
/// `xTrueNorthZVertical` when the source does not come from a configuration file. The choice
/// and any error are logged once on standard error (silence with `CMMotionLogging`).
enum SystemMotion {
    struct Resolution: @unchecked Sendable {   // immutable after the one-time resolution
        let service: MotionService?
        let summary: String
    }

    static let shared: Resolution = resolve(environment: ProcessInfo.processInfo.environment)

    static var service: MotionService? { shared.service }

    static func resolve(environment env: [String: String]) -> Resolution {
        CMMotionLogging.applyEnvironment(env)
        if let spec = env["EDGEMOTION_SOURCE"], !spec.isEmpty {
            do {
                let source = try makeSource(spec)
                return Resolution(service: service(for: source, env: env), summary: "EDGEMOTION_SOURCE=\(spec)")
            } catch {
                report("EDGEMOTION_SOURCE=\(spec): \(error); no motion sensors are available")
                return Resolution(service: nil, summary: "EDGEMOTION_SOURCE=\(spec) failed: \(error)")
            }
        }
        let config = env["EDGEMOTION_CONFIG"] ?? "/etc/edgemotion/edgemotion.yaml"
        if FileManager.default.fileExists(atPath: config) {
            do {
                let configuration = try ConfigurationLoader.load(path: config)
                return Resolution(service: try MotionService.make(configuration: configuration), summary: config)
            } catch {
                report("\(config): \(error); no motion sensors are available")
                return Resolution(service: nil, summary: "\(config) failed: \(error)")
            }
        }
        if let device = probeIIO() {
            let source = IIOSource(uri: "local:", device: device)
            return Resolution(service: service(for: source, env: env), summary: "probe: IIO device \(device)")
        }
        return Resolution(service: nil, summary: "no IMU: set EDGEMOTION_SOURCE or /etc/edgemotion/edgemotion.yaml")
    }

    struct SpecError: Error, CustomStringConvertible {
        var description: String
    }

    static func makeSource(_ spec: String) throws -> any IMUSource {
        let parts = spec.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let kind = parts.first ?? "", rest = parts.count > 1 ? parts[1] : ""
        switch kind {
        case "simulator" where rest == "shielded":
            // At rest inside a magnetic shield (a steel enclosure): the earth field does not reach
            // the magnetometer, which reads its own noise only. North cannot be found, so a north
            // frame must say `deviceRequiresMovement` (take the board out, move it).
            return SimulatedIMU(options: SimulatorOptions(scenario: .stationary, seed: 1, realTime: true,
                                                          includeGyroscope: true, includeMagnetometer: true,
                                                          earth: SimulatedEarth(fieldIntensity: 0)))
        case "simulator":
            let name = rest.isEmpty ? "walking" : rest
            guard let scenario = SimulationScenario(named: name) else {
                throw SpecError(description: "unknown scenario '\(name)'; use one of \(SimulationScenario.names.joined(separator: ", ")) or a timeline walking:60,stationary")
            }
            return SimulatedIMU(options: SimulatorOptions(scenario: scenario, seed: 1, realTime: true,
                                                          includeGyroscope: true, includeMagnetometer: true))
        case "replay":
            guard !rest.isEmpty else { throw SpecError(description: "replay needs a path: replay:/path/to/recording.csv") }
            if rest.hasSuffix("." + RecordingFormat.fileExtension) { return try RecordedFileSource(path: rest) }
            return try ReplaySource(path: rest, speed: .recorded, loop: false)
        case "iio":
            guard !rest.isEmpty else { throw SpecError(description: "iio needs a device name: iio:lsm6dsox") }
            return IIOSource(uri: "local:", device: rest)
        case "i2c":
            let f = rest.split(separator: ":").map(String.init)
            guard f.count == 3, let bus = Int(f[0]), let address = parseAddress(f[1]), let chip = IMUChipModel(rawValue: f[2]) else {
                throw SpecError(description: "i2c wants BUS:ADDR:CHIP, e.g. i2c:1:0x68:mpu6050 (chips: \(IMUChipModel.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            return I2CIMUSource(bus: bus, address: address, chip: chip)
        default:
            throw SpecError(description: "unknown source '\(kind)'; use simulator:SCENARIO, replay:PATH, iio:NAME or i2c:BUS:ADDR:CHIP")
        }
    }

    static func parseAddress(_ s: String) -> UInt16? {
        s.hasPrefix("0x") ? UInt16(s.dropFirst(2), radix: 16) : UInt16(s)
    }

    static func service(for source: any IMUSource, env: [String: String]) -> MotionService {
        var configuration = MotionService.libraryConfiguration(for: source, rate: 200)
        if let lat = env["EDGEMOTION_LATITUDE"].flatMap(Double.init), let lon = env["EDGEMOTION_LONGITUDE"].flatMap(Double.init) {
            let year = 1970 + Date().timeIntervalSince1970 / (365.2425 * 86_400)
            configuration.declination = MagneticDeclination.radians(latitude: lat, longitude: lon, decimalYear: year)
        }
        return MotionService(source: source, configuration: configuration)
    }

    /// The first IIO device with accelerometer channels on this board, if any.
    static func probeIIO() -> String? {
        guard let devices = try? IIODeviceInfo.list(uri: "local:") else { return nil }
        return devices.first { d in !d.isTrigger && d.channels.contains { $0.id.hasPrefix("accel") } }?.id
    }

    static func report(_ message: String) {
        guard CMMotionLogging.isEnabled else { return }
        FileHandle.standardError.write(Data("CoreMotion: \(message)\n".utf8))
    }
}
