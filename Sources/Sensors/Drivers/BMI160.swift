#if canImport(Glibc)
import Glibc
#endif
import MotionCore

/// Bosch BMI160 over direct I2C. Register map: hardware/register-maps/bmi160.md.
///
/// Accel and gyro ODR = 100 Hz · 2^(code − 8); normal filter mode (bandwidth tied to ODR);
/// data-ready on INT1 (push-pull, active high). One 12-byte little-endian burst from DATA_8:
/// gyro x, y, z then accel x, y, z.
///
/// FIFO mode (`enableFIFO`): headerless accel+gyro frames (FIFO_CONFIG_1 = gyr_en | acc_en), 12 bytes
/// each in the same layout as the DATA_8 burst, queue in the 1024-byte FIFO (85 frames; stream mode
/// drops the oldest frame when full). The watermark interrupt (`fwm`, non-latched) drives INT1; the
/// reader takes FIFO_LENGTH and bursts whole frames from FIFO_DATA, whose address does not advance.
/// A full FIFO (no room for another frame) means frames were or are about to be dropped: it counts
/// as an overflow and is flushed (CMD fifo_flush).
public final class BMI160: IMUChipDriver, FIFOChipDriver, @unchecked Sendable {
    public enum Register {
        public static let chipID = I2CRegister(0x00, "CHIP_ID")
        public static let gyroX = I2CRegister(0x0C, "DATA_8 (GYR_X_L)")
        public static let fifoLength = I2CRegister(0x22, "FIFO_LENGTH_0")
        public static let fifoData = I2CRegister(0x24, "FIFO_DATA")
        public static let accelConfig = I2CRegister(0x40, "ACC_CONF")
        public static let accelRange = I2CRegister(0x41, "ACC_RANGE")
        public static let gyroConfig = I2CRegister(0x42, "GYR_CONF")
        public static let gyroRange = I2CRegister(0x43, "GYR_RANGE")
        public static let fifoConfig0 = I2CRegister(0x46, "FIFO_CONFIG_0")
        public static let fifoConfig1 = I2CRegister(0x47, "FIFO_CONFIG_1")
        public static let intStatus0 = I2CRegister(0x1C, "INT_STATUS_0")
        public static let intEnable0 = I2CRegister(0x50, "INT_EN_0")
        public static let intEnable1 = I2CRegister(0x51, "INT_EN_1")
        public static let intOutControl = I2CRegister(0x53, "INT_OUT_CTRL")
        public static let intLatch = I2CRegister(0x54, "INT_LATCH")
        public static let intMap1 = I2CRegister(0x56, "INT_MAP_1")
        public static let intMap2 = I2CRegister(0x57, "INT_MAP_2")
        public static let intLowHigh0 = I2CRegister(0x5A, "INT_LOWHIGH_0")
        public static let intLowHigh1 = I2CRegister(0x5B, "INT_LOWHIGH_1")
        public static let intLowHigh2 = I2CRegister(0x5C, "INT_LOWHIGH_2")
        public static let intMotion0 = I2CRegister(0x5F, "INT_MOTION_0")
        public static let intMotion1 = I2CRegister(0x60, "INT_MOTION_1")
        public static let intTap0 = I2CRegister(0x63, "INT_TAP_0")
        public static let intTap1 = I2CRegister(0x64, "INT_TAP_1")
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

    /// FIFO_CONFIG_1: fifo_gyr_en | fifo_acc_en, no header, no magnetometer, no sensortime.
    public static let fifoSources: UInt8 = 0xC0
    /// CMD values.
    public static let commandFIFOFlush: UInt8 = 0xB0
    /// INT_EN_1 / INT_MAP_1 bit of the FIFO watermark interrupt (`int_fwm_en`, `int1_fwm`).
    public static let interruptFIFOWatermark: UInt8 = 0x40
    /// One headerless FIFO frame: gyro x, y, z then accel x, y, z, 16-bit little-endian.
    public static let fifoFrameBytes = 12
    /// FIFO size in bytes.
    public static let fifoCapacityBytes = 1024
    /// SMBus chunk of a FIFO burst: two whole frames, so no transfer ends inside a frame.
    public static let fifoChunkBytes = 24

    public let model = IMUChipModel.bmi160
    let device: I2CDevice
    private var accelScale = 0.0
    private var gyroScale = 0.0
    private let burst: UnsafeMutableRawBufferPointer
    private let fifoLengthBytes: UnsafeMutableRawBufferPointer
    private var fifoBytes: UnsafeMutableRawBufferPointer?
    /// The chip flags of the event engines `configure` programmed (BMI160+EventEngines.swift).
    public internal(set) var chipEvents: IMUSample.Flags = []
    /// Decodes the INT_STATUS_0/1 pair read per data-ready edge (keeps the tap bits of the last read).
    var eventDecoder = EventDecoder(enabled: [])
    /// INT_STATUS_0, INT_STATUS_1 of the last per-edge read.
    let statusBytes: UnsafeMutableRawBufferPointer

    public init(device: I2CDevice) {
        self.device = device
        burst = .zeroed(byteCount: 12, alignment: 8)
        fifoLengthBytes = .zeroed(byteCount: 2, alignment: 2)
        statusBytes = .zeroed(byteCount: 2, alignment: 2)
    }

    deinit {
        burst.deallocate()
        fifoLengthBytes.deallocate()
        statusBytes.deallocate()
        fifoBytes?.deallocate()
    }

    // MARK: FIFO

    /// Whole frames the FIFO holds (1024 / 12 = 85).
    public var fifoCapacityFrames: Int { Self.fifoCapacityBytes / Self.fifoFrameBytes }

    /// INT1 follows the FIFO watermark level.
    public var fifoInterrupt: FIFOInterrupt { .watermark }

    /// FIFO_CONFIG_0 for a watermark of `frames` frames: fifo_water_mark counts 4-byte units.
    public static func watermarkCode(frames: Int) -> UInt8 {
        UInt8(max(1, min(frames * fifoFrameBytes / 4, 255)))
    }

    /// Starts FIFO mode after `configure`: FIFO off, watermark set, gyro+accel headerless frames on,
    /// flushed; with `dataReadyInterrupt` INT1 carries the watermark interrupt (non-latched) instead
    /// of data-ready.
    public func enableFIFO(dataReadyInterrupt: Bool, watermarkFrames: Int) throws(SensorError) {
        if fifoBytes == nil {
            fifoBytes = .zeroed(byteCount: fifoCapacityFrames * Self.fifoFrameBytes, alignment: 8)
        }
        let watermark = max(1, min(watermarkFrames, fifoCapacityFrames / 2))
        try device.write(Register.fifoConfig1, 0)
        try device.write(Register.fifoConfig0, Self.watermarkCode(frames: watermark))
        try device.write(Register.fifoConfig1, Self.fifoSources)
        try device.write(Register.command, Self.commandFIFOFlush)
        if dataReadyInterrupt {
            try device.write(Register.intOutControl, 0x0A)                      // INT1 output, active high, push-pull
            try device.write(Register.intLatch, 0x00)                           // non-latched: INT1 follows the level
            try device.write(Register.intMap1, Self.interruptFIFOWatermark)     // fwm → INT1 (no data-ready)
            try device.write(Register.intEnable1, Self.interruptFIFOWatermark)  // int_fwm_en
        } else {
            try device.write(Register.intEnable1, 0)
        }
    }

    /// Empties the FIFO (CMD fifo_flush).
    public func resetFIFO() throws(SensorError) {
        try device.write(Register.command, Self.commandFIFOFlush)
    }

    /// FIFO_LENGTH (11-bit byte count): whole frames, and whether the FIFO is full. In stream mode a
    /// full FIFO drops its oldest frame for each new one, and it stays full until read, so a full
    /// count is how an overflow shows (the chip has no overflow flag in headerless mode).
    public func fifoStatus() throws(SensorError) -> (overflowed: Bool, frames: Int) {
        try device.read(Register.fifoLength, into: fifoLengthBytes)
        let bytes = Int(fifoLengthBytes[0]) | Int(fifoLengthBytes[1] & 0x07) << 8
        let frames = bytes / Self.fifoFrameBytes
        return (frames >= fifoCapacityFrames, frames)
    }

    /// Burst-reads `n` whole frames from FIFO_DATA (24-byte SMBus chunks, each from FIFO_DATA
    /// again) and converts them into `samples[0..<n]`, oldest first (SI units, sensor frame).
    /// Allocation-free.
    public func readFIFO(frames n: Int, into samples: UnsafeMutableBufferPointer<IMUSample>) throws(SensorError) {
        guard let fifoBytes else {
            throw SensorError(.io, subject: I2CError.subject(bus: device.bus.number, address: device.address, register: Register.fifoData),
                              detail: "FIFO read before enableFIFO")
        }
        let count = min(n, samples.count, fifoCapacityFrames)
        guard count > 0 else { return }
        let bytes = UnsafeMutableRawBufferPointer(rebasing: fifoBytes[0..<(count * Self.fifoFrameBytes)])
        try device.bus.readFIFO(address: device.address, register: Register.fifoData, into: bytes, chunkBytes: Self.fifoChunkBytes)
        let raw = UnsafeRawBufferPointer(bytes)
        for i in 0..<count {
            let at = i * Self.fifoFrameBytes
            samples[i].rotationRate = RegisterDecoding.vector(raw, at: at, bigEndian: false, scale: gyroScale)
            samples[i].specificForce = RegisterDecoding.vector(raw, at: at + 6, bigEndian: false, scale: accelScale)
            samples[i].contents = .inertial
        }
    }

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
        }
        let engines = try programEventEngines(s, fullScaleG: a.range, odr: r.rate)
        try writeInterruptEnables(dataReady: s.dataReadyInterrupt, engines: engines)   // last
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
        if !chipEvents.isEmpty { try? device.write(Register.intEnable0, 0) }
        try? device.write(Register.intEnable1, 0)
        if fifoBytes != nil { try? device.write(Register.fifoConfig1, 0) }
        try? device.write(Register.command, 0x10)     // accel suspend
        try? device.write(Register.command, 0x14)     // gyro suspend
    }
}
