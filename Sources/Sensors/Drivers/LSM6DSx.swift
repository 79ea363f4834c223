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
///
/// FIFO mode (`enableFIFO`), continuous (the oldest data is overwritten when full, flagged as an
/// overrun), accel and gyro at the sensor ODR, the FIFO threshold on INT1 (a level: one edge per
/// burst). The two chips store data differently (`FIFOLayout`):
/// - LSM6DS3: untagged 16-bit words in a fixed pattern Gx Gy Gz Ax Ay Az (FIFO_CTRL3 decimation 1
///   for both), read from FIFO_DATA_OUT_L, whose address wraps back at FIFO_DATA_OUT_H; a frame is
///   6 words = 12 bytes, the same layout as the OUTX_L_G burst. FIFO_PATTERN must be 0 (at Gx) when
///   a burst starts, or the reader lost the pattern: that counts as an overflow and resets the FIFO.
/// - LSM6DSOX: tagged 7-byte words (tag, then x, y, z little-endian) read from FIFO_DATA_OUT_TAG
///   (the address wraps back after OUTZ_H); a frame is 2 words, one gyro (tag 0x01) and one accel
///   (tag 0x02) of the same batch period, in whichever order the chip wrote them.
/// SMBus chunks are whole words and frames (24 bytes on the LSM6DS3, 28 on the LSM6DSOX).
public final class LSM6DSx: IMUChipDriver, FIFOChipDriver, @unchecked Sendable {
    public enum Register {
        public static let int1Control = I2CRegister(0x0D, "INT1_CTRL")
        public static let whoAmI = I2CRegister(0x0F, "WHO_AM_I")
        public static let control1Accel = I2CRegister(0x10, "CTRL1_XL")
        public static let control2Gyro = I2CRegister(0x11, "CTRL2_G")
        public static let control3 = I2CRegister(0x12, "CTRL3_C")
        public static let gyroXLow = I2CRegister(0x22, "OUTX_L_G")
        // LSM6DSOX event engines (LSM6DSx+EventEngines.swift)
        public static let wakeUpSource = I2CRegister(0x1B, "WAKE_UP_SRC")
        public static let tapSource = I2CRegister(0x1C, "TAP_SRC")
        public static let tapConfig0 = I2CRegister(0x56, "TAP_CFG0")
        public static let tapConfig1 = I2CRegister(0x57, "TAP_CFG1")
        public static let tapConfig2 = I2CRegister(0x58, "TAP_CFG2")
        public static let tapThreshold6D = I2CRegister(0x59, "TAP_THS_6D")
        public static let interruptDuration2 = I2CRegister(0x5A, "INT_DUR2")
        public static let wakeUpThreshold = I2CRegister(0x5B, "WAKE_UP_THS")
        public static let wakeUpDuration = I2CRegister(0x5C, "WAKE_UP_DUR")
        public static let freeFall = I2CRegister(0x5D, "FREE_FALL")
        public static let md1Config = I2CRegister(0x5E, "MD1_CFG")
        public static let control8Accel = I2CRegister(0x17, "CTRL8_XL")
        public static let orientationSource = I2CRegister(0x1D, "D6D_SRC")
        public static let fifoStatus1 = I2CRegister(0x3A, "FIFO_STATUS1")
        // LSM6DS3 FIFO
        public static let ds3FIFOControl1 = I2CRegister(0x06, "FIFO_CTRL1")
        public static let ds3FIFOControl2 = I2CRegister(0x07, "FIFO_CTRL2")
        public static let ds3FIFOControl3 = I2CRegister(0x08, "FIFO_CTRL3")
        public static let ds3FIFOControl4 = I2CRegister(0x09, "FIFO_CTRL4")
        public static let ds3FIFOControl5 = I2CRegister(0x0A, "FIFO_CTRL5")
        public static let ds3FIFOData = I2CRegister(0x3E, "FIFO_DATA_OUT_L")
        // LSM6DSOX FIFO
        public static let dsoxFIFOControl1 = I2CRegister(0x07, "FIFO_CTRL1")
        public static let dsoxFIFOControl2 = I2CRegister(0x08, "FIFO_CTRL2")
        public static let dsoxFIFOControl3 = I2CRegister(0x09, "FIFO_CTRL3")
        public static let dsoxFIFOControl4 = I2CRegister(0x0A, "FIFO_CTRL4")
        public static let dsoxFIFOData = I2CRegister(0x78, "FIFO_DATA_OUT_TAG")
    }

    /// How a chip of the family lays out its FIFO.
    public struct FIFOLayout: Sendable {
        /// Watermark (threshold) low byte, in words.
        public var watermark: I2CRegister
        /// The register with the watermark's high bits (the other bits are written 0).
        public var watermarkHigh: I2CRegister
        /// Mask of the watermark's high bits in `watermarkHigh`.
        public var watermarkHighMask: UInt8
        /// FIFO_MODE (bits 2:0) register: LSM6DS3 FIFO_CTRL5 (with ODR_FIFO in bits 6:3), LSM6DSOX FIFO_CTRL4.
        public var mode: I2CRegister
        /// Status bytes read from FIFO_STATUS1 (the LSM6DS3 adds FIFO_STATUS3/4, the pattern index).
        public var statusBytes: Int
        /// Mask of DIFF_FIFO's high bits in FIFO_STATUS2.
        public var countHighMask: UInt8
        /// FIFO_STATUS2 bits meaning "data was overwritten".
        public var overrunBits: UInt8
        /// Output register of FIFO bursts.
        public var data: I2CRegister
        /// Bytes per FIFO word (DIFF_FIFO and the watermark count words).
        public var wordBytes: Int
        /// Words per accel+gyro frame.
        public var wordsPerFrame: Int
        /// Words the FIFO holds.
        public var capacityWords: Int
        /// SMBus chunk of a burst (whole frames, ≤ 32 bytes).
        public var chunkBytes: Int

        public var frameBytes: Int { wordBytes * wordsPerFrame }

        /// LSM6DS3: 8 KB of untagged 16-bit words, DIFF_FIFO 12 bits, OVER_RUN = bit 6.
        public static let lsm6ds3 = FIFOLayout(
            watermark: Register.ds3FIFOControl1, watermarkHigh: Register.ds3FIFOControl2, watermarkHighMask: 0x0F, mode: Register.ds3FIFOControl5,
            statusBytes: 4, countHighMask: 0x0F, overrunBits: 0x40, data: Register.ds3FIFOData,
            wordBytes: 2, wordsPerFrame: 6, capacityWords: 4096, chunkBytes: 24)
        /// LSM6DSOX: tagged 7-byte words, watermark 9 bits (≤ 511 words, the kernel's FIFO size 512),
        /// DIFF_FIFO 10 bits, FIFO_OVR_IA = bit 6 and FIFO_OVR_LATCHED = bit 3.
        public static let lsm6dsox = FIFOLayout(
            watermark: Register.dsoxFIFOControl1, watermarkHigh: Register.dsoxFIFOControl2, watermarkHighMask: 0x01, mode: Register.dsoxFIFOControl4,
            statusBytes: 2, countHighMask: 0x03, overrunBits: 0x48, data: Register.dsoxFIFOData,
            wordBytes: 7, wordsPerFrame: 2, capacityWords: 512, chunkBytes: 28)
    }

    /// FIFO_MODE continuous (overwrite the oldest when full); 0 = bypass (FIFO off and emptied).
    public static let fifoModeContinuous: UInt8 = 0b110
    /// INT1_CTRL: FIFO threshold on INT1 (INT1_FTH / INT1_FIFO_TH).
    public static let interruptFIFOThreshold: UInt8 = 0x08
    /// LSM6DSOX FIFO tags (TAG_SENSOR, bits 7:3 of the tag byte).
    public static let tagGyro: UInt8 = 0x01, tagAccel: UInt8 = 0x02

    /// ±g → FS_XL bits (3:2) and LSB per g (0.061, 0.122, 0.244, 0.488 mg/LSB).
    public static let accelRanges: [(range: Double, value: (code: UInt8, lsb: Double))] =
        [(2, (0b00, 1000 / 0.061)), (4, (0b10, 1000 / 0.122)), (8, (0b11, 1000 / 0.244)), (16, (0b01, 1000 / 0.488))]
    /// ±°/s → CTRL2_G bits 3:1 (FS_G, FS_125) and LSB per °/s (8.75 … 70 mdps/LSB).
    public static let gyroRanges: [(range: Double, value: (code: UInt8, lsb: Double))] =
        [(125, (0b001, 1000 / 4.375)), (250, (0b000, 1000 / 8.75)), (500, (0b010, 1000 / 17.5)),
         (1000, (0b100, 1000 / 35)), (2000, (0b110, 1000 / 70))]
    public static let rates: [(rate: Double, value: UInt8)] =
        [(12.5, 1), (26, 2), (52, 3), (104, 4), (208, 5), (416, 6), (833, 7), (1666, 8)]
    /// ST's recommended lowest output data rate for the LSM6DSOX's tap engine, Hz (AN5272 asks for
    /// 417 Hz, the ODR this table calls 416); below it the engine sees a tap's 10–20 ms shock in
    /// one or two samples (docs/chip-engines.md measures it at 26 Hz: taps on jump landings).
    public static let tapMinimumODR = 416.0

    /// INT1_CTRL bit 0 INT1_DRDY_XL.
    public static let interruptDataReadyAccel: UInt8 = 0x01

    /// Whether `configure` programmed the wake-up engine.
    public internal(set) var motionEngineEnabled = false
    /// The chip event flags `configure` programmed engines for (`LSM6DSx+EventEngines.swift`).
    public internal(set) var chipEvents: IMUSample.Flags = []
    /// WAKE_UP_SRC, TAP_SRC: read in one burst per INT1 edge.
    let eventSourceBytes: UnsafeMutableRawBufferPointer

    public let model: IMUChipModel
    /// The FIFO format of this chip.
    public let fifoLayout: FIFOLayout
    let device: I2CDevice
    private var accelScale = 0.0
    private var gyroScale = 0.0
    private var odrCode: UInt8 = 0
    private let burst: UnsafeMutableRawBufferPointer
    private let statusBytes: UnsafeMutableRawBufferPointer
    private var fifoBytes: UnsafeMutableRawBufferPointer?
    private var lastGyro = Vector3.zero
    private var lastAccel = Vector3.zero

    public init(device: I2CDevice, model: IMUChipModel) {
        self.device = device
        self.model = model
        fifoLayout = model == .lsm6ds3 ? .lsm6ds3 : .lsm6dsox
        burst = .zeroed(byteCount: 12, alignment: 8)
        statusBytes = .zeroed(byteCount: 4, alignment: 4)
        eventSourceBytes = .zeroed(byteCount: 3, alignment: 2)
    }

    deinit {
        burst.deallocate()
        statusBytes.deallocate()
        eventSourceBytes.deallocate()
        fifoBytes?.deallocate()
    }

    // MARK: FIFO

    /// Whole accel+gyro frames the FIFO holds: 682 (LSM6DS3), 256 (LSM6DSOX).
    public var fifoCapacityFrames: Int { fifoLayout.capacityWords / fifoLayout.wordsPerFrame }

    /// INT1 follows the FIFO threshold level.
    public var fifoInterrupt: FIFOInterrupt { .watermark }

    /// The FIFO_MODE register's value for `mode` (the LSM6DS3 keeps ODR_FIFO = the sensor ODR beside it).
    private func modeValue(_ mode: UInt8) -> UInt8 {
        model == .lsm6ds3 ? odrCode << 3 | mode : mode
    }

    /// Starts FIFO mode after `configure`: bypass (empties it), accel and gyro batched at the ODR,
    /// threshold = `watermarkFrames` frames, continuous mode; with `dataReadyInterrupt` INT1 carries
    /// the FIFO threshold instead of data-ready.
    public func enableFIFO(dataReadyInterrupt: Bool, watermarkFrames: Int) throws(SensorError) {
        let layout = fifoLayout
        if fifoBytes == nil {
            fifoBytes = .zeroed(byteCount: fifoCapacityFrames * layout.frameBytes, alignment: 8)
        }
        let words = max(1, min(watermarkFrames, fifoCapacityFrames / 2)) * layout.wordsPerFrame
        try device.write(layout.mode, modeValue(0))                                       // bypass: FIFO emptied
        if model == .lsm6ds3 {
            try device.write(Register.ds3FIFOControl3, 0x09)                              // DEC_FIFO_GYRO = DEC_FIFO_XL = 1 (no decimation)
            try device.write(Register.ds3FIFOControl4, 0x00)                              // no third/fourth data set
        } else {
            try device.write(Register.dsoxFIFOControl3, odrCode << 4 | odrCode)           // BDR_GY | BDR_XL = ODR
        }
        try device.write(layout.watermark, UInt8(words & 0xFF))
        try device.write(layout.watermarkHigh, UInt8(words >> 8) & layout.watermarkHighMask)
        try device.write(layout.mode, modeValue(Self.fifoModeContinuous))
        try device.write(Register.int1Control, dataReadyInterrupt ? Self.interruptFIFOThreshold : 0)
        lastGyro = .zero
        lastAccel = .zero
    }

    /// Empties the FIFO: bypass, then continuous again (clears the overrun flags).
    public func resetFIFO() throws(SensorError) {
        try device.write(fifoLayout.mode, modeValue(0))
        try device.write(fifoLayout.mode, modeValue(Self.fifoModeContinuous))
    }

    /// FIFO_STATUS1/2 (and on the LSM6DS3 FIFO_STATUS3/4) in one burst: DIFF_FIFO words → whole
    /// frames; an overrun flag, a FIFO that is full, or (LSM6DS3) a pattern index not at Gx count as
    /// an overflow.
    public func fifoStatus() throws(SensorError) -> (overflowed: Bool, frames: Int) {
        let layout = fifoLayout
        let status = UnsafeMutableRawBufferPointer(rebasing: statusBytes[0..<layout.statusBytes])
        try device.read(Register.fifoStatus1, into: status)
        let words = Int(status[0]) | Int(status[1] & layout.countHighMask) << 8
        let frames = words / layout.wordsPerFrame
        var overflowed = status[1] & layout.overrunBits != 0 || frames >= fifoCapacityFrames
        if model == .lsm6ds3, words >= layout.wordsPerFrame {
            let pattern = Int(status[2]) | Int(status[3] & 0x03) << 8
            if pattern != 0 { overflowed = true }                   // not at Gx: frames would be misread
        }
        return (overflowed, frames)
    }

    /// Burst-reads `n` whole frames from the FIFO output register (whole-frame SMBus chunks, each
    /// from the same register) and converts them into `samples[0..<n]`, oldest first (SI units,
    /// sensor frame). LSM6DSOX: a frame's two words are assigned by tag; a frame without a gyro or
    /// accel word (one sensor still starting, or an unexpected tag) repeats that sensor's previous
    /// value. Allocation-free.
    public func readFIFO(frames n: Int, into samples: UnsafeMutableBufferPointer<IMUSample>) throws(SensorError) {
        let layout = fifoLayout
        guard let fifoBytes else {
            throw SensorError(.io, subject: I2CError.subject(bus: device.bus.number, address: device.address, register: layout.data),
                              detail: "FIFO read before enableFIFO")
        }
        let count = min(n, samples.count, fifoCapacityFrames)
        guard count > 0 else { return }
        let bytes = UnsafeMutableRawBufferPointer(rebasing: fifoBytes[0..<(count * layout.frameBytes)])
        try device.bus.readFIFO(address: device.address, register: layout.data, into: bytes, chunkBytes: layout.chunkBytes)
        let raw = UnsafeRawBufferPointer(bytes)
        if model == .lsm6ds3 {
            for i in 0..<count {
                let at = i * layout.frameBytes
                samples[i].rotationRate = RegisterDecoding.vector(raw, at: at, bigEndian: false, scale: gyroScale)
                samples[i].specificForce = RegisterDecoding.vector(raw, at: at + 6, bigEndian: false, scale: accelScale)
                samples[i].contents = .inertial
            }
            return
        }
        for i in 0..<count {
            for w in 0..<layout.wordsPerFrame {
                let at = i * layout.frameBytes + w * layout.wordBytes
                switch raw[at] >> 3 {
                case Self.tagGyro: lastGyro = RegisterDecoding.vector(raw, at: at + 1, bigEndian: false, scale: gyroScale)
                case Self.tagAccel: lastAccel = RegisterDecoding.vector(raw, at: at + 1, bigEndian: false, scale: accelScale)
                default: break
                }
            }
            samples[i].rotationRate = lastGyro
            samples[i].specificForce = lastAccel
            samples[i].contents = .inertial
        }
    }

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
        odrCode = r.value
        try device.write(Register.control1Accel, r.value << 4 | a.value.code << 2)
        try device.write(Register.control2Gyro, r.value << 4 | g.value.code << 1)
        try device.write(Register.int1Control, s.dataReadyInterrupt ? Self.interruptDataReadyAccel : 0x00)
        try programEventEngines(s, fullScaleG: a.range, odr: r.rate)
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
        if !chipEvents.isEmpty { try? device.write(Register.md1Config, 0) }
        if fifoBytes != nil { try? device.write(fifoLayout.mode, 0) }
        try? device.write(Register.control1Accel, 0)
        try? device.write(Register.control2Gyro, 0)
    }
}
