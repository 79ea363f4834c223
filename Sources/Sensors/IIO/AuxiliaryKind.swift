/// The environmental quantities published on `sensor/<topic>` (config `auxiliary:`).
public enum AuxiliaryKind: String, Sendable, CaseIterable, Hashable {
    /// Barometric pressure, kPa (as Core Motion's `CMAltitudeData.pressure`).
    case pressure
    /// Temperature, °C.
    case temperature
    /// Ambient light (illuminance), lux.
    case light
    /// Relative humidity, %.
    case humidity

    /// From an IIO channel type (`pressure`, `temp`, `illuminance`, `humidityrelative`).
    public init?(iioType: String) {
        switch iioType {
        case "pressure": self = .pressure
        case "temp": self = .temperature
        case "illuminance": self = .light
        case "humidityrelative": self = .humidity
        default: return nil
        }
    }

    /// The IIO channel type of a channel id: `temp` from `temp`, `pressure` from `pressure0`,
    /// `illuminance` from `illuminance_clear`.
    public static func iioType(ofChannel id: String) -> String {
        var s = Substring(id.split(separator: "_").first ?? Substring(id))
        while let c = s.last, c.isNumber { s = s.dropLast() }
        return String(s)
    }

    /// The last level of `sensor/<topic>`.
    public var topic: String { rawValue }

    /// Published unit.
    public var unit: String {
        switch self {
        case .pressure: "kPa"
        case .temperature: "°C"
        case .light: "lx"
        case .humidity: "%"
        }
    }

    /// Factor from the IIO ABI unit (sysfs-bus-iio: pressure kPa, temp milli °C, illuminance lux,
    /// humidityrelative milli percent) to `unit`.
    public var abiFactor: Double {
        switch self {
        case .pressure, .light: 1
        case .temperature, .humidity: 1e-3
        }
    }
}

/// One reading of an auxiliary channel, in `kind.unit`.
public struct AuxiliaryReading: Sendable, Equatable {
    public var kind: AuxiliaryKind
    /// IIO device name (`bmp280`, `bh1750`).
    public var device: String
    public var value: Double
    /// When it was read, ns `CLOCK_MONOTONIC`.
    public var timestampNanos: UInt64

    public init(kind: AuxiliaryKind, device: String, value: Double, timestampNanos: UInt64) {
        self.kind = kind
        self.device = device
        self.value = value
        self.timestampNanos = timestampNanos
    }
}
