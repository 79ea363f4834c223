#if canImport(Glibc)
import Glibc
#endif
import MotionCore

/// Bosch BMI160 over direct I2C. Register map: hardware/register-maps/bmi160.md.
///
/// Accel and gyro ODR = 100 Hz · 2^(code − 8); normal filter mode (bandwidth tied to ODR);
/// data-ready on INT1 (push-pull, active high). One 12-byte little-endian burst from DATA_8:
/// gyro x, y, z then accel x, y, z.
public final class BMI160: IMUChipDriver, @unchecked Sendable {
    public enum Register {
        public static let chipID = I2CRegister(0x00, "CHIP_ID")
        public static let gyroX = I2CRegister(0x0C, "DATA_8 (GYR_X_L)")
        public static let accelConfig = I2CRegister(0x40, "ACC_CONF")
        public static let accelRange = I2CRegister(0x41, "ACC_RANGE")
        public static let gyroConfig = I2CRegister(0x42, "GYR_CONF")
        public static let gyroRange = I2CRegister(0x43, "GYR_RANGE")
        public static let intEnable1 = I2CRegister(0x51, "INT_EN_1")
        public static let intOutControl = I2CRegister(0x53, "INT_OUT_CTRL")
        public static let intMap1 = I2CRegister(0x56, "INT_MAP_1")
        public static let command = I2CRegister(0x7E, "CMD")
    }

    /// ±g → ACC_RANGE code, LSB per g.
    public static let accelRanges: [(range: Double, value: (code: UInt8, lsb: Double))] =
        [(2, (0x03, 16384)), (4, (0x05, 8192)), (8, (0x08, 4096)), (16, (0x0C, 2048))]
    /// ±°/s → GYR_RANGE code, LSB per °/s.
    public static let gyroRanges: [(range: Double, value: (code: UInt8, lsb: Double))] =
        [(125, (4, 262.4)), (250, (3, 131.2)), (500, (2, 65.6)), (1000, (1, 32.8)), (2000, (0, 16.4))]
    /// ODR codes shared by accel and gyro (gyro starts at 25 Hz).
    public static let rates: [(rate: Double, value: UInt8)] =
        (6...12).map { (100 * pow(2, Double($0) - 8), UInt8($0)) }

    public let model = IMUChipModel.bmi160
    private let device: I2CDevice
    private var accelScale = 0.0
    private var gyroScale = 0.0
    private let burst: UnsafeMutableRawBufferPointer

    public init(device: I2CDevice) {
        self.device = device
        burst = .allocate(byteCount: 12, alignment: 8)
        burst.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit { burst.deallocate() }

    public var supportedRates: [Double] { Self.rates.map(\.rate) }

    public func probe() throws(SensorError) {
        try device.expectIdentity(Register.chipID, model.whoAmI.value, model: model)
    }

    public func configure(_ s: IMUChipSettings) throws(SensorError) -> IMUChipConfiguration {
        try device.write(Register.command, 0xB6)      // soft reset
        usleep(2_000)
        try device.write(Register.command, 0x11)      // accel normal mode
        usleep(5_000)
        try device.write(Register.command, 0x15)      // gyro normal mode
        usleep(81_000)
        let r = RegisterDecoding.pickRate(Self.rates, atLeast: s.rate)
        let a = RegisterDecoding.pickRange(Self.accelRanges, covering: s.accelRangeG)
        let g = RegisterDecoding.pickRange(Self.gyroRanges, covering: s.gyroRangeDPS)
        try device.write(Register.accelConfig, 0x20 | r.value)   // acc_bwp = normal
        try device.write(Register.accelRange, a.value.code)
        try device.write(Register.gyroConfig, 0x20 | r.value)    // gyr_bwp = normal
        try device.write(Register.gyroRange, g.value.code)
        if s.dataReadyInterrupt {
            try device.write(Register.intOutControl, 0x0A)       // INT1 output enabled, active high, push-pull
            try device.write(Register.intMap1, 0x80)             // data ready → INT1
            try device.write(Register.intEnable1, 0x10)          // drdy_en
        }
        accelScale = RegisterDecoding.accelScale(lsbPerG: a.value.lsb)
        gyroScale = RegisterDecoding.gyroScale(lsbPerDPS: g.value.lsb)
        return IMUChipConfiguration(rate: r.rate, accelRangeG: a.range, gyroRangeDPS: g.range, lowpassHz: nil,
                                    accelScale: accelScale, gyroScale: gyroScale)
    }

    public func read(into sample: inout IMUSample) throws(SensorError) {
        try device.read(Register.gyroX, into: burst)
        let raw = UnsafeRawBufferPointer(burst)
        sample.rotationRate = RegisterDecoding.vector(raw, at: 0, bigEndian: false, scale: gyroScale)
        sample.specificForce = RegisterDecoding.vector(raw, at: 6, bigEndian: false, scale: accelScale)
        sample.contents = .inertial
    }

    public func shutdown() {
        try? device.write(Register.intEnable1, 0)
        try? device.write(Register.command, 0x10)     // accel suspend
        try? device.write(Register.command, 0x14)     // gyro suspend
    }
}
