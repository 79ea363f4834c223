/// `source.i2c:` — an IMU driven directly over `/dev/i2c-N`.
public struct I2CSettings: Sendable, Equatable {
    /// Chips `chip` accepts.
    public static let chips = ["mpu6050", "mpu9250", "lsm6ds3", "lsm6dsox", "bmi160"]
    /// Accelerometer full-scale ranges, g.
    public static let accelRanges = [2, 4, 8, 16]
    /// Gyroscope full-scale ranges, degrees per second.
    public static let gyroRanges = [125, 250, 500, 1000, 2000]

    /// `bus`: N in `/dev/i2c-N`.
    public var bus: Int
    /// `address`: 7-bit device address, 0x03…0x77 (YAML accepts `0x68` or `104`).
    public var address: Int
    /// `chip`: one of `I2CSettings.chips`.
    public var chip: String
    /// `accel_range_g`: accelerometer full scale, g (one of `accelRanges`).
    public var accelRangeG: Int
    /// `gyro_range_dps`: gyroscope full scale, degrees per second (one of `gyroRanges`).
    public var gyroRangeDPS: Int
    /// `lowpass_hz`: digital low-pass cut-off, Hz; `nil` keeps the chip's default.
    public var lowPassHz: Double?
    /// `fifo`: read the chip's FIFO in bursts (every chip), timestamps spread by the measured period.
    public var fifo = false
    /// `fifo_watermark`: samples per FIFO burst, 1 … 40.
    public var fifoWatermark = 10

    public init(bus: Int = 1, address: Int = 0x68, chip: String = "mpu6050", accelRangeG: Int = 4, gyroRangeDPS: Int = 500, lowPassHz: Double? = nil) {
        self.bus = bus
        self.address = address
        self.chip = chip
        self.accelRangeG = accelRangeG
        self.gyroRangeDPS = gyroRangeDPS
        self.lowPassHz = lowPassHz
    }
}
