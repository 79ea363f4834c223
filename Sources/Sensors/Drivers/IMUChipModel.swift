import MotionCore

/// The IMU chips EdgeMotion drives directly over I2C (config `source.i2c.chip`).
public enum IMUChipModel: String, Sendable, CaseIterable {
    case mpu6050
    case mpu9250
    case lsm6ds3
    case lsm6dsox
    case bmi160

    /// Identity register and the value it must hold.
    public var whoAmI: (register: I2CRegister, value: UInt8) {
        switch self {
        case .mpu6050: (I2CRegister(0x75, "WHO_AM_I"), 0x68)
        case .mpu9250: (I2CRegister(0x75, "WHO_AM_I"), 0x71)
        case .lsm6ds3: (I2CRegister(0x0F, "WHO_AM_I"), 0x69)
        case .lsm6dsox: (I2CRegister(0x0F, "WHO_AM_I"), 0x6C)
        case .bmi160: (I2CRegister(0x00, "CHIP_ID"), 0xD1)
        }
    }

    /// 7-bit addresses the chip can have (address pin low first).
    public var addresses: [UInt16] {
        switch self {
        case .mpu6050, .mpu9250: [0x68, 0x69]
        case .lsm6ds3, .lsm6dsox: [0x6A, 0x6B]
        case .bmi160: [0x68, 0x69]
        }
    }

    /// Sensors the chip delivers.
    public var contents: IMUSample.Contents {
        self == .mpu9250 ? .all : .inertial
    }

    /// Known chips whose identity register at `register` reads `value` (used by `edgemotion probe`
    /// and for "found X instead" hints).
    public static func identify(register: UInt8, value: UInt8) -> [IMUChipModel] {
        allCases.filter { $0.whoAmI.register.address == register && $0.whoAmI.value == value }
    }

    /// Human name of a WHO_AM_I value seen at an MPU/ICM/LSM identity register, for error hints.
    static func knownIdentity(_ value: UInt8, register: UInt8) -> String? {
        if let m = identify(register: register, value: value).first { return m.rawValue }
        switch (register, value) {
        case (0x75, 0x70): return "mpu6500"
        case (0x75, 0x73): return "mpu9255"
        case (0x75, 0x12): return "icm20602"
        case (0x75, 0x98): return "icm20689"
        case (0x0F, 0x6A): return "lsm6dsl"
        case (0x0F, 0x6B): return "lsm6dsr"
        default: return nil
        }
    }
}

/// Full-scale ranges and filter asked for (config `source.i2c`).
public struct IMUChipSettings: Sendable, Hashable {
    /// Output data rate, Hz.
    public var rate: Double
    /// Accelerometer full scale, ±g.
    public var accelRangeG: Double
    /// Gyroscope full scale, ±°/s.
    public var gyroRangeDPS: Double
    /// Digital low-pass bandwidth, Hz; `nil` picks one below the Nyquist frequency.
    public var lowpassHz: Double?
    /// Enable the chip's data-ready interrupt output.
    public var dataReadyInterrupt: Bool
    /// Program the chip's motion-detection engine (reported through the data-ready INT pin's edges, `IMUChipModel.hasMotionInterrupt`), or nil.
    public var motionInterrupt: MotionInterruptSettings?
    /// Program the chip's free-fall engine onto the INT pin (`IMUChipModel.chipEngines`), or nil.
    public var freeFallInterrupt: FreeFallInterruptSettings?
    /// Program the chip's single/double-tap engine onto the INT pin (`IMUChipModel.chipEngines`), or nil.
    public var tapInterrupt: TapInterruptSettings?
    /// Program the chip's 6D orientation engine onto the INT pin (`IMUChipModel.chipEngines`), or nil.
    public var orientationInterrupt: OrientationInterruptSettings?

    public init(rate: Double, accelRangeG: Double = 4, gyroRangeDPS: Double = 500, lowpassHz: Double? = nil, dataReadyInterrupt: Bool = false,
                motionInterrupt: MotionInterruptSettings? = nil, freeFallInterrupt: FreeFallInterruptSettings? = nil,
                tapInterrupt: TapInterruptSettings? = nil, orientationInterrupt: OrientationInterruptSettings? = nil) {
        self.rate = rate
        self.accelRangeG = accelRangeG
        self.gyroRangeDPS = gyroRangeDPS
        self.lowpassHz = lowpassHz
        self.dataReadyInterrupt = dataReadyInterrupt
        self.motionInterrupt = motionInterrupt
        self.freeFallInterrupt = freeFallInterrupt
        self.tapInterrupt = tapInterrupt
        self.orientationInterrupt = orientationInterrupt
    }

    /// The chip flags of the engines these settings ask the chip for (each non-nil `…Interrupt`,
    /// through `ChipEngine.flags`): the one home of "which engines a configuration wants", used by
    /// `I2CIMUSource.start`'s check and the drivers' `programEventEngines`.
    public var requestedChipEngines: IMUSample.Flags {
        var f = IMUSample.Flags()
        if motionInterrupt != nil { f.formUnion(ChipEngine.motion.flags) }
        if freeFallInterrupt != nil { f.formUnion(ChipEngine.freeFall.flags) }
        if tapInterrupt != nil { f.formUnion(ChipEngine.tap.flags) }
        if orientationInterrupt != nil { f.formUnion(ChipEngine.orientation.flags) }
        return f
    }
}

/// What a chip was actually set to.
public struct IMUChipConfiguration: Sendable, Hashable {
    /// Output data rate, Hz.
    public var rate: Double
    /// ±g.
    public var accelRangeG: Double
    /// ±°/s.
    public var gyroRangeDPS: Double
    /// Low-pass bandwidth, Hz (nil when the chip's filter is tied to the rate).
    public var lowpassHz: Double?
    /// m/s² per LSB.
    public var accelScale: Double
    /// rad/s per LSB.
    public var gyroScale: Double
}

/// Register-level driver of one chip, over an `I2CDevice`.
public protocol IMUChipDriver: AnyObject, Sendable {
    var model: IMUChipModel { get }
    /// Output data rates the chip supports, Hz ascending.
    var supportedRates: [Double] { get }
    /// Checks the identity register; throws `.wrongDevice` naming what was found.
    func probe() throws(SensorError)
    /// Resets and configures the chip.
    func configure(_ settings: IMUChipSettings) throws(SensorError) -> IMUChipConfiguration
    /// Burst-reads the newest sample and converts it (SI, sensor frame). Allocation-free.
    func read(into sample: inout IMUSample) throws(SensorError)
    /// Puts the chip to sleep (best effort).
    func shutdown()
}

extension IMUChipModel {
    /// Whether EdgeMotion can program the chip's own motion engine onto its data-ready INT pin
    /// (`IMUChipSettings.motionInterrupt`, `MotionInterruptChip`): MPU-6050 motion detection,
    /// LSM6DSOX wake-up, BMI160 any-motion.
    public var hasMotionInterrupt: Bool { chipEngines.contains(.chipMotion) }

    /// The chip event flags EdgeMotion can program the chip's own engines for: MPU-6050 motion;
    /// LSM6DSOX wake-up (motion), free-fall, single and double tap, 6D orientation; BMI160
    /// any-motion, low-g (free fall), single and double tap; none on the others.
    public var chipEngines: IMUSample.Flags {
        switch self {
        case .mpu6050: .chipMotion
        case .lsm6dsox: [.chipMotion, .chipFreeFall, .chipTap, .chipDoubleTap, .chipOrientation]
        case .bmi160: [.chipMotion, .chipFreeFall, .chipTap, .chipDoubleTap]
        default: []
        }
    }

    /// Creates the driver for this chip on `device`.
    public func makeDriver(on device: I2CDevice) -> any IMUChipDriver {
        switch self {
        case .mpu6050: MPU6050(device: device)
        case .mpu9250: MPU6050(device: device, model: .mpu9250)
        case .bmi160: BMI160(device: device)
        case .lsm6ds3, .lsm6dsox: LSM6DSx(device: device, model: self)
        }
    }
}

/// What the chip's interrupt line signals in FIFO mode.
public enum FIFOInterrupt: Sendable {
    /// One pulse per sample (data-ready), the reader counts `watermark` edges (MPU-6050).
    case everySample
    /// A level that rises when the FIFO reaches the watermark and falls when it is read below it
    /// (BMI160 `fwm`, LSM6DSx FIFO threshold): one edge per burst, timing the watermark-th frame.
    case watermark
}

/// A chip driver with a sample FIFO read in bursts (config `source.i2c.fifo`).
public protocol FIFOChipDriver: IMUChipDriver {
    /// Whole frames (one accel + gyro sample each) the FIFO holds.
    var fifoCapacityFrames: Int { get }
    /// What the interrupt line signals once FIFO mode is on.
    var fifoInterrupt: FIFOInterrupt { get }
    /// Switches the configured chip to FIFO mode, empty; with `dataReadyInterrupt` the chip's INT
    /// line signals samples or the `watermarkFrames` level (see `fifoInterrupt`).
    func enableFIFO(dataReadyInterrupt: Bool, watermarkFrames: Int) throws(SensorError)
    /// Empties the FIFO.
    func resetFIFO() throws(SensorError)
    /// Whether the FIFO overflowed since the last call (clears the flag), and the whole frames it holds.
    func fifoStatus() throws(SensorError) -> (overflowed: Bool, frames: Int)
    /// Reads `n` frames into `samples[0..<n]`, oldest first (values only). Allocation-free.
    func readFIFO(frames n: Int, into samples: UnsafeMutableBufferPointer<IMUSample>) throws(SensorError)
}
