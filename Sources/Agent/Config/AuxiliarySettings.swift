/// `auxiliary:` — environmental sensors (pressure, temperature, light, humidity) read from any IIO
/// devices at a low rate, published on `sensor/pressure`, `sensor/temperature`, `sensor/light`,
/// `sensor/humidity` and (with pressure) `altitude`. Off while `devices` is empty.
public struct AuxiliarySettings: Sendable, Equatable {
    /// `uri`: libiio context URI (`local:`, `ip:host`).
    public var uri: String
    /// `devices`: IIO device names, labels, ids (`iio:device3`) or indices (e.g. `[bmp280, bh1750]`);
    /// every pressure, temp, illuminance and humidityrelative input channel on them is read.
    public var devices: [String]
    /// `rate`: reads per second, Hz, 0.01…10 (read on the agent's main loop, never the IMU path).
    public var rate: Double
    /// `publish_rate`: messages per second on each topic, Hz, ≤ `rate`; a message carries the
    /// mean of the readings since the previous one.
    public var publishRate: Double
    /// `qos`: MQTT quality of service, 0…2.
    public var qos: Int
    /// `retain`: publish with the retain flag.
    public var retain: Bool

    public init(uri: String = "local:", devices: [String] = [], rate: Double = 1, publishRate: Double = 1, qos: Int = 0, retain: Bool = false) {
        self.uri = uri
        self.devices = devices
        self.rate = rate
        self.publishRate = publishRate
        self.qos = qos
        self.retain = retain
    }

    /// Whether anything is read.
    public var enabled: Bool { !devices.isEmpty }
}
