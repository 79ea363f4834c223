import Foundation
internal import EdgeMotion
internal import Agent
internal import Sensors

/// The board's barometer for `CMAltimeter`, decided once per process (like `SystemMotion` for the
/// IMU):
///
/// 1. `EDGEMOTION_BAROMETER`: an IIO device name, label or id (`bmp280`, `iio:device2`), on
///    `EDGEMOTION_BAROMETER_URI` (default `local:`);
/// 2. the first `auxiliary.devices` entry with a pressure channel in the agent's configuration
///    (`EDGEMOTION_CONFIG` or /etc/edgemotion/edgemotion.yaml), on its `auxiliary.uri`;
/// 3. the first IIO device on the board with a `pressure` input channel;
/// 4. none: `CMAltimeter.isRelativeAltitudeAvailable()` is false.
struct SystemBarometer: Sendable, Equatable {
    /// libiio context URI.
    let uri: String
    /// IIO device name, label or id.
    let device: String

    static let shared: SystemBarometer? = resolve(environment: ProcessInfo.processInfo.environment)

    static func resolve(environment env: [String: String]) -> SystemBarometer? {
        if let device = env["EDGEMOTION_BAROMETER"], !device.isEmpty {
            let uri = env["EDGEMOTION_BAROMETER_URI"].flatMap { $0.isEmpty ? nil : $0 } ?? "local:"
            if hasPressure(uri: uri, device: device) { return SystemBarometer(uri: uri, device: device) }
            SystemMotion.report("EDGEMOTION_BAROMETER=\(device): no pressure channel on \(uri); no barometer is available")
            return nil
        }
        let config = env["EDGEMOTION_CONFIG"] ?? "/etc/edgemotion/edgemotion.yaml"
        if FileManager.default.fileExists(atPath: config), let c = try? ConfigurationLoader.load(path: config) {
            for device in c.auxiliary.devices where hasPressure(uri: c.auxiliary.uri, device: device) {
                return SystemBarometer(uri: c.auxiliary.uri, device: device)
            }
        }
        guard let devices = try? IIODeviceInfo.list(uri: "local:") else { return nil }
        return devices.first { d in !d.isTrigger && d.channels.contains { $0.id.hasPrefix("pressure") } }
            .map { SystemBarometer(uri: "local:", device: $0.id) }
    }

    static func hasPressure(uri: String, device: String) -> Bool {
        (try? AuxiliarySensorReader(uri: uri, devices: [device]))?.kinds.contains(.pressure) ?? false
    }
}
