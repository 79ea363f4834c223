/// `source.iio:` — a Linux Industrial I/O device through libiio.
public struct IIOSettings: Sendable, Equatable {
    /// Values `trigger` accepts.
    public static let triggers = ["own", "hrtimer", "none"]

    /// `uri`: libiio context URI (`local:`, `ip:192.168.1.5`, …).
    public var uri: String
    /// `device`: IIO device name, label or index (`iio:device0` or `0`); `nil` picks the first
    /// device with an accelerometer.
    public var device: String?
    /// `devices`: several IIO devices combined into one IMU (e.g. `[lsm6dsox_accel, lsm6dsox_gyro]`),
    /// read exactly as listed; empty: `device` plus its sibling devices (same parent hardware device)
    /// that add a sensor kind it lacks.
    public var devices: [String]
    /// `trigger`: `own` (the device's data-ready trigger), `hrtimer` (a software timer trigger),
    /// or `none` (poll channels).
    public var trigger: String
    /// `buffer`: read through the IIO buffer (false: read sysfs channel by channel).
    public var buffer: Bool
    /// `buffer_length`: samples per IIO buffer refill, 1…65536.
    public var bufferLength: Int

    public init(uri: String = "local:", device: String? = nil, devices: [String] = [], trigger: String = "own", buffer: Bool = true, bufferLength: Int = 64) {
        self.uri = uri
        self.device = device
        self.devices = devices
        self.trigger = trigger
        self.buffer = buffer
        self.bufferLength = bufferLength
    }
}
