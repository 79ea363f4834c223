#if canImport(Glibc)
import Glibc
#endif
import MotionCore

/// ST LSM6DS3 and LSM6DSOX (same control and output registers for this use).
/// Register map: hardware/register-maps/lsm6dsx.md.
///
/// ODR codes 1…8 = 12.5 · 2^(code − 1) Hz (12.5 … 1666 Hz); block data update and register
/// auto-increment on; data-ready on INT1. One 12-byte little-endian burst from OUTX_L_G:
/// gyro x, y, z then accel x, y, z.
public final class LSM6DSx: IMUChipDriver, @unchecked Sendable {
    public enum Register {
        public static let int1Control = I2CRegister(0x0D, "INT1_CTRL")
        public static let whoAmI = I2CRegister(0x0F, "WHO_AM_I")
        public static let control1Accel = I2CRegister(0x10, "CTRL1_XL")
        public static let control2Gyro = I2CRegister(0x11, "CTRL2_G")
        public static let control3 = I2CRegister(0x12, "CTRL3_C")
        public static let gyroXLow = I2CRegister(0x22, "OUTX_L_G")
    }

    /// ±g → FS_XL bits (3:2) and LSB per g (0.061, 0.122, 0.244, 0.488 mg/LSB).
    public static let accelRanges: [(range: Double, value: (code: UInt8, lsb: Double))] =
        [(2, (0b00, 1000 / 0.061)), (4, (0b10, 1000 / 0.122)), (8, (0b11, 1000 / 0.244)), (16, (0b01, 1000 / 0.488))]
    /// ±°/s → CTRL2_G bits 3:1 (FS_G, FS_125) and LSB per °/s (8.75 … 70 mdps/LSB).
    public static let gyroRanges: [(range: Double, value: (code: UInt8, lsb: Double))] =
        [(125, (0b001, 1000 / 4.375)), (250, (0b000, 1000 / 8.75)), (500, (0b010, 1000 / 17.5)),
         (1000, (0b100, 1000 / 35)), (2000, (0b110, 1000 / 70))]
    public static let rates: [(rate: Double, value: UInt8)] =
        [(12.5, 1), (26, 2), (52, 3), (104, 4), (208, 5), (416, 6), (833, 7), (1666, 8)]

    public let model: IMUChipModel
    private let device: I2CDevice
    private var accelScale = 0.0
    private var gyroScale = 0.0
    private let burst: UnsafeMutableRawBufferPointer

    public init(device: I2CDevice, model: IMUChipModel) {
        self.device = device
        self.model = model
        burst = .allocate(byteCount: 12, alignment: 8)
        burst.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit { burst.deallocate() }

    public var supportedRates: [Double] { Self.rates.map(\.rate) }

    public func probe() throws(SensorError) {
        try device.expectIdentity(Register.whoAmI, model.whoAmI.value, model: model)
    }

    public func configure(_ s: IMUChipSettings) throws(SensorError) -> IMUChipConfiguration {
        try device.write(Register.control3, 0x01)            // SW_RESET
        usleep(10_000)
        try device.write(Register.control3, 0x44)            // BDU | IF_INC
        let r = RegisterDecoding.pickRate(Self.rates, atLeast: s.rate)
        let a = RegisterDecoding.pickRange(Self.accelRanges, covering: s.accelRangeG)
        let g = RegisterDecoding.pickRange(Self.gyroRanges, covering: s.gyroRangeDPS)
        try device.write(Register.control1Accel, r.value << 4 | a.value.code << 2)
        try device.write(Register.control2Gyro, r.value << 4 | g.value.code << 1)
        try device.write(Register.int1Control, s.dataReadyInterrupt ? 0x01 : 0x00)   // INT1_DRDY_XL
        accelScale = RegisterDecoding.accelScale(lsbPerG: a.value.lsb)
        gyroScale = RegisterDecoding.gyroScale(lsbPerDPS: g.value.lsb)
        return IMUChipConfiguration(rate: r.rate, accelRangeG: a.range, gyroRangeDPS: g.range, lowpassHz: nil,
                                    accelScale: accelScale, gyroScale: gyroScale)
    }

    public func read(into sample: inout IMUSample) throws(SensorError) {
        try device.read(Register.gyroXLow, into: burst)
        let raw = UnsafeRawBufferPointer(burst)
        sample.rotationRate = RegisterDecoding.vector(raw, at: 0, bigEndian: false, scale: gyroScale)
        sample.specificForce = RegisterDecoding.vector(raw, at: 6, bigEndian: false, scale: accelScale)
        sample.contents = .inertial
    }

    public func shutdown() {
        try? device.write(Register.int1Control, 0)
        try? device.write(Register.control1Accel, 0)
        try? device.write(Register.control2Gyro, 0)
    }
}
