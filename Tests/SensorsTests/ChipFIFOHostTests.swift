import Testing
import MotionCore
@testable import Sensors

/// FIFO mode of the BMI160, LSM6DSOX and LSM6DS3 drivers over scripted chips below the
/// `I2CAdapter` seam (`ScriptedIMUChips.swift`; i2c-stub has no FIFO semantics).
@Suite("BMI160 / LSM6DSx FIFO (host)")
struct ChipFIFOHostTests {
    typealias Support = FIFOHostTestSupport

    func bmi160(_ chip: ScriptedBMI160, dataReady: Bool = false, watermark: Int = 10) throws -> (BMI160, IMUChipConfiguration) {
        let bus = try I2CBus(number: 9, path: "scripted", adapter: chip)
        let driver = BMI160(device: I2CDevice(bus: bus, address: chip.address))
        try driver.probe()
        let config = try driver.configure(IMUChipSettings(rate: 200, accelRangeG: 4, gyroRangeDPS: 1000, dataReadyInterrupt: dataReady))
        try driver.enableFIFO(dataReadyInterrupt: dataReady, watermarkFrames: watermark)
        return (driver, config)
    }

    func lsm6(_ chip: ScriptedLSM6DSx, model: IMUChipModel = .lsm6dsox, dataReady: Bool = false,
              watermark: Int = 10) throws -> (LSM6DSx, IMUChipConfiguration) {
        let bus = try I2CBus(number: 9, path: "scripted", adapter: chip)
        let driver = LSM6DSx(device: I2CDevice(bus: bus, address: chip.address), model: model)
        try driver.probe()
        let config = try driver.configure(IMUChipSettings(rate: 100, accelRangeG: 4, gyroRangeDPS: 500, dataReadyInterrupt: dataReady))
        try driver.enableFIFO(dataReadyInterrupt: dataReady, watermarkFrames: watermark)
        return (driver, config)
    }

    // MARK: Configuration

    @Test func bmi160FIFOIsHeaderlessGyroAndAccelWithTheWatermarkInFourByteUnitsOnINT1AndFlushed() throws {
        let chip = ScriptedBMI160()
        chip.push(3)                                           // stale frames from before
        _ = try bmi160(chip, dataReady: true, watermark: 10)
        let s = chip.state.withLock { $0 }
        let reg = { (r: UInt8) in s.registers[Int(r)] }
        #expect(reg(0x46) == 30)                               // FIFO_CONFIG_0: 10 frames × 12 bytes / 4
        #expect(reg(0x47) == 0xC0)                             // FIFO_CONFIG_1: gyr_en | acc_en, no header
        #expect(reg(0x56) == 0x40 && reg(0x51) == 0x40)       // INT_MAP_1 int1_fwm, INT_EN_1 int_fwm_en (no drdy)
        #expect(reg(0x54) == 0x00)                             // non-latched
        #expect(s.writes.last { $0.register == 0x7E }?.value == 0xB0)   // fifo_flush
        #expect(s.fifo.isEmpty)
        #expect(BMI160.watermarkCode(frames: 40) == 120)
    }

    @Test func lsm6dsoxFIFOBatchesBothSensorsAtTheODRContinuousWithTheThresholdInWordsOnINT1() throws {
        let chip = ScriptedLSM6DSx()
        chip.push(3)
        let (driver, config) = try lsm6(chip, dataReady: true, watermark: 10)
        let s = chip.state.withLock { $0 }
        #expect(config.rate == 104)
        #expect(s.registers[0x09] == 0x44)                     // FIFO_CTRL3: BDR_GY = BDR_XL = 104 Hz
        #expect(s.registers[0x07] == 20 && s.registers[0x08] == 0)   // FIFO_CTRL1/2: 10 frames = 20 tagged words
        #expect(s.registers[0x0A] == 0x06)                     // FIFO_CTRL4: continuous
        #expect(s.registers[0x0D] == 0x08)                     // INT1_CTRL: INT1_FIFO_TH (data-ready off)
        #expect(s.writes.contains { $0.register == 0x0A && $0.value == 0 })   // bypass first: stale data gone
        #expect(s.fifo.isEmpty)
        #expect(driver.fifoCapacityFrames == 256)
    }

    @Test func lsm6ds3FIFOUsesTheFIFOODRAndNoDecimationWithTheThresholdInSixteenBitWords() throws {
        let chip = ScriptedLSM6DSx(model: .lsm6ds3)
        let (driver, _) = try lsm6(chip, model: .lsm6ds3, watermark: 40)
        let s = chip.state.withLock { $0 }
        #expect(s.registers[0x08] == 0x09)                     // FIFO_CTRL3: no decimation, gyro and accel
        #expect(s.registers[0x0A] == 0x26)                     // FIFO_CTRL5: ODR_FIFO 104 Hz | continuous
        #expect(Int(s.registers[0x06]) | Int(s.registers[0x07]) << 8 == 240)   // 40 frames × 6 words
        #expect(s.registers[0x0D] == 0x00)                     // no line: INT1 off
        #expect(driver.fifoCapacityFrames == 682)
    }

    // MARK: Bursts

    @Test(arguments: [false, true])
    func bmi160BurstsAreWholeFramesInUnitsAndSMBusChunksAreWholeFramesFromFIFO_DATA(plainI2C: Bool) throws {
        let chip = ScriptedBMI160(plainI2C: plainI2C)
        let (driver, config) = try bmi160(chip)
        chip.push(7)
        chip.append([1, 2, 3, 4, 5])                          // a frame still being written
        let status = try driver.fifoStatus()
        #expect(status == (false, 7))
        let out = Support.samples(16)
        defer { out.deallocate() }
        try driver.readFIFO(frames: status.frames, into: out)
        Support.expectFrames(out, count: 7, accelScale: config.accelScale, gyroScale: config.gyroScale)
        #expect(abs(config.accelScale - standardGravity / 8192) < 1e-15 && abs(config.gyroScale - .pi / 180 / 32.8) < 1e-15)
        let s = chip.state.withLock { $0 }
        #expect(s.fifo == [1, 2, 3, 4, 5])                    // the partial frame is not read
        #expect(s.fifoChunks == (plainI2C ? [84] : [24, 24, 24, 12]))
        #expect(s.largestSMBusBlock <= 32)
    }

    @Test(arguments: [false, true])
    func lsm6dsoxTaggedWordsDecodeByTagInEitherOrderAndAnOddWordWaits(accelFirst: Bool) throws {
        let chip = ScriptedLSM6DSx()
        chip.accelFirst = accelFirst
        let (driver, config) = try lsm6(chip)
        chip.push(7)
        let extra = ScriptedLSM6DSx.taggedWord(tag: 0x01, count: 3, [9, 9, 9])   // the next frame's first word only
        chip.append(extra)
        let status = try driver.fifoStatus()
        #expect(status == (false, 7))
        let out = Support.samples(16)
        defer { out.deallocate() }
        try driver.readFIFO(frames: status.frames, into: out)
        Support.expectFrames(out, count: 7, accelScale: config.accelScale, gyroScale: config.gyroScale)
        #expect(abs(config.accelScale - 0.122e-3 * standardGravity) < 1e-15 && abs(config.gyroScale - 17.5e-3 * .pi / 180) < 1e-15)
        let s = chip.state.withLock { $0 }
        #expect(s.fifo == extra)
        #expect(s.fifoChunks == [28, 28, 28, 14])             // two tagged frames per chunk, each from 0x78
    }

    @Test func lsm6dsoxAFrameMissingAGyroWordRepeatsThePreviousGyro() throws {
        let chip = ScriptedLSM6DSx()
        let (driver, config) = try lsm6(chip)
        chip.push(1)
        chip.append(ScriptedLSM6DSx.taggedWord(tag: 0x02, count: 1, [1, 2, 3]) + ScriptedLSM6DSx.taggedWord(tag: 0x02, count: 2, [4, 5, 6]))
        let out = Support.samples(2)
        defer { out.deallocate() }
        try driver.readFIFO(frames: try driver.fifoStatus().frames, into: out)
        #expect(out[1].rotationRate == out[0].rotationRate)
        #expect(out[1].specificForce == Vector3(4, 5, 6) * config.accelScale)   // the newer accel word of the pair
    }

    @Test(arguments: [false, true])
    func lsm6ds3PatternFramesDecodeAndChunksWrapOnFIFO_DATA_OUT(plainI2C: Bool) throws {
        let chip = ScriptedLSM6DSx(model: .lsm6ds3, plainI2C: plainI2C)
        let (driver, config) = try lsm6(chip, model: .lsm6ds3)
        chip.push(7)
        chip.append([0x11, 0x22, 0x33, 0x44])                 // Gx, Gy of the next frame
        let status = try driver.fifoStatus()
        #expect(status == (false, 7))
        let out = Support.samples(16)
        defer { out.deallocate() }
        try driver.readFIFO(frames: 7, into: out)
        Support.expectFrames(out, count: 7, accelScale: config.accelScale, gyroScale: config.gyroScale)
        let s = chip.state.withLock { $0 }
        #expect(s.fifo == [0x11, 0x22, 0x33, 0x44])
        #expect(s.fifoChunks == (plainI2C ? [84] : [24, 24, 24, 12]))
    }

    @Test func lsm6ds3APatternNotAtGyroXCountsAsAnOverflow() throws {
        let chip = ScriptedLSM6DSx(model: .lsm6ds3)
        let (driver, _) = try lsm6(chip, model: .lsm6ds3)
        chip.push(3)
        let word = try I2CBus(number: 9, path: "scripted", adapter: chip)
        _ = try word.readByte(address: 0x6B, register: I2CRegister(0x3E, "FIFO_DATA_OUT_L"))   // someone read one byte
        _ = try word.readByte(address: 0x6B, register: I2CRegister(0x3F, "FIFO_DATA_OUT_H"))
        #expect(try driver.fifoStatus().overflowed)
        try driver.resetFIFO()
        #expect(try driver.fifoStatus() == (false, 0))
    }

    // MARK: Overflow

    @Test func bmi160AFullFIFOIsAnOverflowAndAFlushEmptiesIt() throws {
        let chip = ScriptedBMI160()
        let (driver, _) = try bmi160(chip)
        chip.push(84)
        #expect(try driver.fifoStatus() == (false, 84))     // one frame of room left: not yet
        chip.push(6)                                           // 90 frames into 85: the oldest dropped
        #expect(try driver.fifoStatus().overflowed)
        try driver.resetFIFO()
        #expect(chip.state.withLock { $0.fifo.isEmpty })
        #expect(try driver.fifoStatus() == (false, 0))
    }

    @Test(arguments: [IMUChipModel.lsm6dsox, .lsm6ds3])
    func lsm6OverrunIsReportedAndBypassEmptiesTheFIFO(model: IMUChipModel) throws {
        let chip = ScriptedLSM6DSx(model: model)
        let (driver, _) = try lsm6(chip, model: model)
        chip.push(driver.fifoCapacityFrames + 3)
        #expect(try driver.fifoStatus().overflowed)
        try driver.resetFIFO()
        #expect(chip.state.withLock { $0.fifo.isEmpty })
        #expect(try driver.fifoStatus() == (false, 0))
        let modes = chip.state.withLock { $0.writes.filter { $0.register == 0x0A }.suffix(2).map(\.value) }
        #expect(modes.map { $0 & 0x07 } == [0, 6])             // bypass, then continuous again
    }

    // MARK: The source over each chip

    @Test func bmi160SourceHandsOutEveryFrameInOrderAndCountsAnOverflowAsAGap() throws {
        try Support.expectBurstsInOrderAndOneOverflowCounted(chip: ScriptedBMI160(), model: .bmi160, requestedRate: 200, expectedRate: 200)
    }

    @Test func lsm6dsoxSourceHandsOutEveryFrameInOrderAndCountsAnOverflowAsAGap() throws {
        try Support.expectBurstsInOrderAndOneOverflowCounted(chip: ScriptedLSM6DSx(), model: .lsm6dsox, requestedRate: 200, expectedRate: 208)
    }

    @Test func lsm6ds3SourceHandsOutEveryFrameInOrderAndCountsAnOverflowAsAGap() throws {
        try Support.expectBurstsInOrderAndOneOverflowCounted(chip: ScriptedLSM6DSx(model: .lsm6ds3), model: .lsm6ds3,
                                                             requestedRate: 200, expectedRate: 208)
    }

    @Test func aFIFOReadThatIsNotAcknowledgedNamesBusAddressAndRegister() throws {
        let chip = ScriptedLSM6DSx()
        let (driver, _) = try lsm6(chip)
        chip.push(2)
        chip.state.withLock { $0.nack = true }
        let out = Support.samples(2)
        defer { out.deallocate() }
        let status = #expect(throws: SensorError.self) { try driver.fifoStatus() }
        #expect(status?.description.contains("i2c-9 0x6b register 0x3a (FIFO_STATUS1)") == true, "\(String(describing: status))")
        let burst = #expect(throws: SensorError.self) { try driver.readFIFO(frames: 2, into: out) }
        #expect(burst?.description.contains("i2c-9 0x6b register 0x78 (FIFO_DATA_OUT_TAG)") == true, "\(String(describing: burst))")
    }
}
