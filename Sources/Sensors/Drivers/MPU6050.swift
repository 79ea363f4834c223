#if canImport(Glibc)
import Glibc
#endif
import MotionCore

/// InvenSense MPU-6050 (and the MPU-9250's accel/gyro core, with its AK8963 magnetometer reached
/// through I2C bypass). Register map: hardware/register-maps/mpu6050.md.
///
/// Sampling: DLPF on (gyro clock 1 kHz), ODR = 1 kHz / (1 + SMPLRT_DIV). Data-ready on INT, cleared
/// by any read (INT_RD_CLEAR). One 14-byte burst from ACCEL_XOUT_H: accel, temperature, gyro, big-endian.
///
/// FIFO mode (`enableFIFO`): accel and gyro (FIFO_EN = XG|YG|ZG|ACCEL, no temperature) go into the
/// chip's FIFO as 12-byte frames at the sample rate; the reader drains whole frames in bursts from
/// FIFO_R_W (see `FIFOTimestamper` for their times). An overflow (FIFO_OFLOW_INT) is counted and the
/// FIFO reset, since its contents no longer start on a frame boundary.
public final class MPU6050: IMUChipDriver, FIFOChipDriver, @unchecked Sendable {
    public enum Register {
        public static let sampleRateDivider = I2CRegister(0x19, "SMPLRT_DIV")
        public static let config = I2CRegister(0x1A, "CONFIG")
        public static let gyroConfig = I2CRegister(0x1B, "GYRO_CONFIG")
        public static let accelConfig = I2CRegister(0x1C, "ACCEL_CONFIG")
        public static let accelConfig2 = I2CRegister(0x1D, "ACCEL_CONFIG2")
        /// Motion-detection threshold (see `motionThresholdLSB`).
        public static let motionThreshold = I2CRegister(0x1F, "MOT_THR")
        /// Motion-detection duration, 1 LSB = 1 ms.
        public static let motionDuration = I2CRegister(0x20, "MOT_DUR")
        public static let fifoEnable = I2CRegister(0x23, "FIFO_EN")
        public static let intPinConfig = I2CRegister(0x37, "INT_PIN_CFG")
        public static let intEnable = I2CRegister(0x38, "INT_ENABLE")
        public static let intStatus = I2CRegister(0x3A, "INT_STATUS")
        public static let accelXHigh = I2CRegister(0x3B, "ACCEL_XOUT_H")
        public static let userControl = I2CRegister(0x6A, "USER_CTRL")
        public static let powerManagement1 = I2CRegister(0x6B, "PWR_MGMT_1")
        public static let fifoCountHigh = I2CRegister(0x72, "FIFO_COUNTH")
        public static let fifoData = I2CRegister(0x74, "FIFO_R_W")
        public static let whoAmI = I2CRegister(0x75, "WHO_AM_I")
    }

    /// ±g → AFS_SEL code and LSB per g.
    public static let accelRanges: [(range: Double, value: (code: UInt8, lsb: Double))] =
        [(2, (0, 16384)), (4, (1, 8192)), (8, (2, 4096)), (16, (3, 2048))]
    /// ±°/s → FS_SEL code and LSB per °/s.
    public static let gyroRanges: [(range: Double, value: (code: UInt8, lsb: Double))] =
        [(250, (0, 131)), (500, (1, 65.5)), (1000, (2, 32.8)), (2000, (3, 16.4))]
    /// DLPF_CFG codes 1…6 with their accelerometer bandwidth, Hz (all run the gyro clock at 1 kHz).
    public static let lowpassTable: [(hz: Double, code: UInt8)] =
        [(5, 6), (10, 5), (21, 4), (44, 3), (94, 2), (184, 1)]

    /// SMPLRT_DIV for `rate` Hz (DLPF on, 1 kHz base) and the rate it yields.
    public static func sampleRateDivider(for rate: Double) -> (divider: UInt8, rate: Double) {
        let d = max(0, min(255, (1000 / max(rate, 1e-3)).rounded() - 1))
        return (UInt8(d), 1000 / (d + 1))
    }

    /// DLPF_CFG for a requested bandwidth (default: the widest one at or below the Nyquist frequency).
    public static func lowpass(requested: Double?, rate: Double) -> (hz: Double, code: UInt8) {
        let limit = requested ?? rate / 2
        return lowpassTable.last(where: { $0.hz <= limit + 1e-9 }) ?? lowpassTable[0]
    }

    /// FIFO_EN: gyro X, Y, Z and accel into the FIFO (no temperature, no slaves).
    public static let fifoSources: UInt8 = 0x78
    /// USER_CTRL bits.
    public static let userControlFIFOEnable: UInt8 = 0x40, userControlFIFOReset: UInt8 = 0x04
    /// INT_ENABLE (0x38, register 56) / INT_STATUS (0x3A, register 58) bits, RM-MPU-6000A-00 rev 4.2
    /// (as in libdriver/mpu6050's `mpu6050_interrupt_t`): bit 6 MOT_EN / MOT_INT, bit 4 FIFO_OFLOW,
    /// bit 0 DATA_RDY.
    public static let interruptMotion: UInt8 = 0x40, interruptFIFOOverflow: UInt8 = 0x10, interruptDataReady: UInt8 = 0x01

    // MARK: Motion detection (MOT_THR 0x1F, MOT_DUR 0x20)
    //
    // The register map itself was not at hand; the scale comes from InvenSense's own code and is
    // disputed in third-party code:
    // - InvenSense Embedded Motion Driver 5.1, inv_mpu.c `mpu_lp_motion_interrupt`, MPU6050 branch:
    //   "1LSb = 32mg" (thresh_hw = mg >> 5, clamped to 1…255); libdriver/mpu6050's
    //   `mpu6050_motion_threshold_convert_to_register` agrees (its test log: 182.6 mg → 5 → 160 mg).
    // - i2cdevlib MPU6050.h (from the older register map rev 2/3) says "1LSB = 2mg".
    // We follow InvenSense's driver (32 mg). MOT_DUR: 1 LSB = 1 ms (both sources; Motion Driver
    // forces at least 1). The engine compares the high-passed accelerometer (ACCEL_CONFIG bits
    // 2:0 ACCEL_HPF, register map rev 3.x / i2cdevlib: 4 = 0.63 Hz, the slowest, nearest the
    // software detector's 1 s gravity average) on each axis with MOT_THR.

    /// mg per MOT_THR LSB (InvenSense Motion Driver 5.1, MPU6050).
    public static let motionThresholdLSBMilliG = 32.0
    /// ACCEL_HPF code for 0.63 Hz.
    public static let accelHighPass063Hz: UInt8 = 4
    /// Standard gravity, m/s² per g (the conversion from the software threshold's units).
    public static let standardGravity = 9.80665

    /// MOT_THR for a threshold in m/s²: nearest code of 32 mg, at least 1 (0 would flag every
    /// sample), at most 255.
    public static func motionThresholdCode(ms2: Double) -> UInt8 {
        let mg = ms2 / standardGravity * 1000
        return UInt8(max(1, min(255, (mg / motionThresholdLSBMilliG).rounded())))
    }

    /// MOT_DUR for a duration in s: 1 ms per LSB, 1…255.
    public static func motionDurationCode(seconds: Double) -> UInt8 {
        UInt8(max(1, min(255, (seconds * 1000).rounded())))
    }

    /// INT_STATUS decoded: which sources raised the shared INT pin.
    public struct InterruptStatus: Sendable, Equatable {
        public var raw: UInt8
        public init(raw: UInt8) { self.raw = raw }
        /// Bit 6 MOT_INT: the motion engine fired.
        public var motion: Bool { raw & MPU6050.interruptMotion != 0 }
        /// Bit 0 DATA_RDY_INT: a new sample is in the output registers.
        public var dataReady: Bool { raw & MPU6050.interruptDataReady != 0 }
        /// Bit 4 FIFO_OFLOW_INT.
        public var fifoOverflow: Bool { raw & MPU6050.interruptFIFOOverflow != 0 }
    }

    /// Reads INT_STATUS once. With INT_RD_CLEAR (INT_PIN_CFG bit 4, set by `configure`) the chip
    /// clears it on this read or any other, so call it before the sample burst on each edge.
    public func readInterruptStatus() throws(SensorError) -> InterruptStatus {
        InterruptStatus(raw: try device.read(Register.intStatus))
    }

    /// Whether `configure` programmed the motion engine.
    public private(set) var motionEngineEnabled = false
    /// One FIFO frame: accel X, Y, Z then gyro X, Y, Z, 16-bit big-endian (register order).
    public static let fifoFrameBytes = 12

    public let model: IMUChipModel
    private let device: I2CDevice
    private var fifoBytes: UnsafeMutableRawBufferPointer?
    private let fifoCountBytes: UnsafeMutableRawBufferPointer
    private var accelScale = 0.0
    private var gyroScale = 0.0
    private let burst: UnsafeMutableRawBufferPointer
    private var magnetometer: AK8963?

    public init(device: I2CDevice, model: IMUChipModel = .mpu6050) {
        self.device = device
        self.model = model
        burst = .zeroed(byteCount: 14, alignment: 8)
        fifoCountBytes = .zeroed(byteCount: 2, alignment: 2)
    }

    deinit {
        burst.deallocate()
        fifoCountBytes.deallocate()
        fifoBytes?.deallocate()
    }

    // MARK: FIFO

    /// FIFO size in bytes: 1024 on the MPU-6050, 512 on the MPU-9250.
    public var fifoCapacityBytes: Int { model == .mpu9250 ? 512 : 1024 }

    /// Whole frames the FIFO can hold.
    public var fifoCapacityFrames: Int { fifoCapacityBytes / Self.fifoFrameBytes }

    /// INT pulses per sample (data-ready); the reader counts `watermark` edges.
    public var fifoInterrupt: FIFOInterrupt { .everySample }

    /// Starts FIFO mode after `configure`: FIFO off and reset, accel+gyro selected, FIFO on; the
    /// overflow interrupt latched in INT_STATUS, and INT pulsing per sample when `dataReadyInterrupt`
    /// (the chip has no watermark interrupt: `watermarkFrames` is the reader's business).
    public func enableFIFO(dataReadyInterrupt: Bool, watermarkFrames: Int = 1) throws(SensorError) {
        if fifoBytes == nil {
            fifoBytes = .zeroed(byteCount: fifoCapacityBytes, alignment: 8)
        }
        try device.write(Register.fifoEnable, 0)
        try device.write(Register.userControl, Self.userControlFIFOReset)
        try device.write(Register.fifoEnable, Self.fifoSources)
        try device.write(Register.userControl, Self.userControlFIFOEnable)
        try device.write(Register.intEnable, Self.interruptFIFOOverflow | (dataReadyInterrupt ? Self.interruptDataReady : 0))
    }

    /// Empties the FIFO (after an overflow its data no longer starts on a frame boundary) and clears
    /// an overflow flag latched since the last `fifoStatus`, so one overflow is reported once.
    public func resetFIFO() throws(SensorError) {
        try device.write(Register.userControl, Self.userControlFIFOEnable | Self.userControlFIFOReset)
        _ = try device.read(Register.intStatus)
    }

    /// INT_STATUS (reading clears it) and FIFO_COUNT: whether the FIFO overflowed since the last
    /// call, and how many whole frames it holds.
    public func fifoStatus() throws(SensorError) -> (overflowed: Bool, frames: Int) {
        let status = try device.read(Register.intStatus)
        try device.read(Register.fifoCountHigh, into: fifoCountBytes)
        let bytes = Int(fifoCountBytes[0]) << 8 | Int(fifoCountBytes[1])
        let overflowed = status & Self.interruptFIFOOverflow != 0 || bytes >= fifoCapacityBytes
        return (overflowed, bytes / Self.fifoFrameBytes)
    }

    /// Burst-reads `n` whole frames from FIFO_R_W (≤ 32-byte chunks on SMBus-only adapters) and
    /// converts them into `samples[0..<n]`, oldest first (SI units, sensor frame; times and
    /// sequence numbers are the caller's). Allocation-free.
    public func readFIFO(frames n: Int, into samples: UnsafeMutableBufferPointer<IMUSample>) throws(SensorError) {
        guard let fifoBytes else { throw SensorError(.io, subject: I2CError.subject(bus: device.bus.number, address: device.address), detail: "FIFO read before enableFIFO") }
        let count = min(n, samples.count, fifoCapacityFrames)
        guard count > 0 else { return }
        let bytes = UnsafeMutableRawBufferPointer(rebasing: fifoBytes[0..<(count * Self.fifoFrameBytes)])
        try device.bus.readFIFO(address: device.address, register: Register.fifoData, into: bytes)
        let raw = UnsafeRawBufferPointer(bytes)
        for i in 0..<count {
            let at = i * Self.fifoFrameBytes
            samples[i].specificForce = RegisterDecoding.vector(raw, at: at, bigEndian: true, scale: accelScale)
            samples[i].rotationRate = RegisterDecoding.vector(raw, at: at + 6, bigEndian: true, scale: gyroScale)
            samples[i].contents = .inertial
        }
        if let magnetometer, try magnetometer.read(into: &samples[count - 1].magneticField) {
            samples[count - 1].contents = .all                 // one magnetometer reading per burst, on the newest frame
        }
    }

    public var supportedRates: [Double] { (0...255).reversed().map { 1000 / Double($0 + 1) } }

    public func probe() throws(SensorError) {
        try device.expectIdentity(Register.whoAmI, model.whoAmI.value, model: model)
    }

    public func configure(_ s: IMUChipSettings) throws(SensorError) -> IMUChipConfiguration {
        try device.write(Register.powerManagement1, 0x80)           // DEVICE_RESET (self-clearing)
        usleep(100_000)
        try device.write(Register.powerManagement1, 0x01)           // wake, clock = PLL with X gyro
        usleep(10_000)
        let (divider, rate) = Self.sampleRateDivider(for: s.rate)
        let lp = Self.lowpass(requested: s.lowpassHz, rate: rate)
        let a = RegisterDecoding.pickRange(Self.accelRanges, covering: s.accelRangeG)
        let g = RegisterDecoding.pickRange(Self.gyroRanges, covering: s.gyroRangeDPS)
        try device.write(Register.config, lp.code)
        try device.write(Register.sampleRateDivider, divider)
        try device.write(Register.gyroConfig, g.value.code << 3)
        let motion = model == .mpu6050 ? s.motionInterrupt : nil
        // ACCEL_CONFIG: AFS_SEL bits 4:3; ACCEL_HPF bits 2:0 feed the motion engine.
        try device.write(Register.accelConfig, a.value.code << 3 | (motion != nil ? Self.accelHighPass063Hz : 0))
        if model == .mpu9250 { try device.write(Register.accelConfig2, lp.code) }   // A_DLPF_CFG
        // INT active high, push-pull, 50 µs pulse, cleared on any read; BYPASS_EN for the AK8963.
        try device.write(Register.intPinConfig, model == .mpu9250 ? 0x12 : 0x10)
        if let motion {
            try device.write(Register.motionThreshold, Self.motionThresholdCode(ms2: motion.thresholdMS2))
            try device.write(Register.motionDuration, Self.motionDurationCode(seconds: motion.duration))
        }
        motionEngineEnabled = motion != nil
        try device.write(Register.intEnable, (s.dataReadyInterrupt ? Self.interruptDataReady : 0) | (motion != nil ? Self.interruptMotion : 0))
        accelScale = RegisterDecoding.accelScale(lsbPerG: a.value.lsb)
        gyroScale = RegisterDecoding.gyroScale(lsbPerDPS: g.value.lsb)
        if model == .mpu9250 {
            let mag = AK8963(bus: device.bus)
            try mag.configure()
            magnetometer = mag
        }
        return IMUChipConfiguration(rate: rate, accelRangeG: a.range, gyroRangeDPS: g.range, lowpassHz: lp.hz,
                                    accelScale: accelScale, gyroScale: gyroScale)
    }

    public func read(into sample: inout IMUSample) throws(SensorError) {
        try device.read(Register.accelXHigh, into: burst)
        let raw = UnsafeRawBufferPointer(burst)
        sample.specificForce = RegisterDecoding.vector(raw, at: 0, bigEndian: true, scale: accelScale)
        sample.rotationRate = RegisterDecoding.vector(raw, at: 8, bigEndian: true, scale: gyroScale)
        sample.contents = .inertial
        if let magnetometer, try magnetometer.read(into: &sample.magneticField) {
            sample.contents = .all
        }
    }

    /// Die temperature from TEMP_OUT, °C (data sheet: raw / 340 + 36.53).
    public static func temperature(raw: Int16) -> Double { Double(raw) / 340 + 36.53 }

    public func shutdown() {
        try? device.write(Register.intEnable, 0)
        try? device.write(Register.powerManagement1, 0x40)          // SLEEP
    }
}
