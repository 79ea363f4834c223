/// One reading of a non-inertial IIO input channel (`temp`, `pressure`, `illuminance`,
/// `humidityrelative`, …), for publishing on `sensor/<type>`.
public struct AuxiliaryChannelReading: Sendable, Hashable {
    /// IIO channel type, the `<type>` of `sensor/<type>` (`temp`, `pressure`, …).
    public var type: String
    /// IIO channel id (`temp`, `pressure0`, `illuminance`).
    public var channel: String
    /// Value in `unit`.
    public var value: Double
    /// SI-ish unit after conversion from the IIO ABI unit: `°C`, `kPa`, `lx`, `%`, `V`, …
    public var unit: String
    /// When it was read, ns `CLOCK_MONOTONIC`.
    public var timestampNanos: UInt64

    public init(type: String, channel: String, value: Double, unit: String, timestampNanos: UInt64) {
        self.type = type
        self.channel = channel
        self.value = value
        self.unit = unit
        self.timestampNanos = timestampNanos
    }

    /// The unit published for an IIO channel type, and the factor from the IIO ABI unit
    /// (temperature is milli-°C, relative humidity milli-percent, voltage mV, …).
    public static func unit(forType type: String) -> (unit: String, factor: Double) {
        switch type {
        case "temp": ("°C", 1e-3)
        case "pressure": ("kPa", 1)
        case "illuminance", "intensity": ("lx", 1)
        case "humidityrelative": ("%", 1e-3)
        case "voltage": ("V", 1e-3)
        case "current": ("A", 1e-3)
        case "proximity", "distance": ("m", 1)
        case "magn": ("µT", 100)
        case "steps": ("steps", 1)
        default: ("", 1)
        }
    }
}
