import Testing
import MotionCore
@testable import Sensors
import TestSupport

/// The MPU-6050's motion-detection interrupt: register codes written by hand from the register
/// scale (MOT_THR 32 mg/LSB per InvenSense's Motion Driver 5.1 `mpu_lp_motion_interrupt`, MOT_DUR
/// 1 ms/LSB), INT_STATUS decoded per RM-MPU-6000A-00 rev 4.2 (bit 6 MOT_INT, bit 4 FIFO_OFLOW_INT,
/// bit 0 DATA_RDY_INT), and what `configure` writes, over a scripted chip below the I2C seam.
@Suite("MPU-6050 motion engine (host)", .ownThread)
struct MPU6050MotionEngineTests {
    /// (m/s², MOT_THR): mg = m/s² / 9.80665 × 1000, code = nearest multiple of 32 mg, 1…255.
    @Test(arguments: [
        (0.3, 1),        // 30.6 mg → 0.96 → 1 (the any-motion default)
        (1.0, 3),        // 102.0 mg → 3.19 → 3
        (3.138128, 10),  // 320.0 mg → 10 exactly
        (4.7, 15),       // 479.3 mg → 14.98 → 15
        (20.0, 64),      // 2039.4 mg → 63.7 → 64 (the config's largest motion_threshold_ms2)
        (0.01, 1),       // 1.0 mg → 0.03: never 0, which would flag every sample
        (100.0, 255),    // 10197 mg → 318.7: the register's largest
    ])
    func theThresholdInMetresPerSecondSquaredBecomesThirtyTwoMilliGSteps(ms2: Double, code: Int) {
        #expect(MPU6050.motionThresholdCode(ms2: ms2) == UInt8(code))
    }

    @Test(arguments: [(0.1, 100), (0.001, 1), (0.0, 1), (0.2554, 255), (2.0, 255)])
    func theDurationIsWholeMillisecondsFromOneTo255(seconds: Double, code: Int) {
        #expect(MPU6050.motionDurationCode(seconds: seconds) == UInt8(code))
    }

    @Test func intStatusBitsTellMotionFromDataReadyOnTheSharedPin() {
        let both = MPU6050.InterruptStatus(raw: 0x41)
        #expect(both.motion && both.dataReady && !both.fifoOverflow)
        let dataOnly = MPU6050.InterruptStatus(raw: 0x01)
        #expect(!dataOnly.motion && dataOnly.dataReady)
        let motionOnly = MPU6050.InterruptStatus(raw: 0x40)
        #expect(motionOnly.motion && !motionOnly.dataReady)
        let overflow = MPU6050.InterruptStatus(raw: 0x10)
        #expect(overflow.fifoOverflow && !overflow.motion && !overflow.dataReady)
        let others = MPU6050.InterruptStatus(raw: 0xBE)                       // every bit but 6 and 0
        #expect(!others.motion && !others.dataReady)
    }

    func configure(_ chip: ScriptedMPU6050, motion: MotionInterruptSettings?) throws -> MPU6050 {
        let bus = try I2CBus(number: 9, path: "scripted", adapter: chip)
        let driver = MPU6050(device: I2CDevice(bus: bus, address: 0x68))
        _ = try driver.configure(IMUChipSettings(rate: 100, accelRangeG: 2, gyroRangeDPS: 250, dataReadyInterrupt: true,
                                                 motionInterrupt: motion))
        return driver
    }

    @Test func configureProgramsThresholdDurationHighPassAndBothInterrupts() throws {
        let chip = ScriptedMPU6050()
        let driver = try configure(chip, motion: MotionInterruptSettings(thresholdMS2: 1.0, duration: 0.1))
        let r = chip.state.withLock { $0.registers }
        #expect(r[0x1F] == 3)                 // MOT_THR: 102 mg
        #expect(r[0x20] == 100)               // MOT_DUR: 100 ms
        #expect(r[0x1C] == 0x04)              // ACCEL_CONFIG: AFS_SEL 0 (±2 g), ACCEL_HPF 4 (0.63 Hz)
        #expect(r[0x38] == 0x41)              // INT_ENABLE: MOT_EN | DATA_RDY_EN
        #expect(r[0x37] == 0x10)              // INT_PIN_CFG: INT_RD_CLEAR, so INT_STATUS is read first per edge
        #expect(driver.motionEngineEnabled)
    }

    @Test func withoutTheEngineNothingOfItIsWritten() throws {
        let chip = ScriptedMPU6050()
        let driver = try configure(chip, motion: nil)
        let s = chip.state.withLock { $0 }
        #expect(!s.writes.contains { $0.register == 0x1F || $0.register == 0x20 })
        #expect(s.registers[0x1C] == 0x00 && s.registers[0x38] == 0x01)
        #expect(!driver.motionEngineEnabled)
    }

    @Test func intStatusIsReadOnceAndTheChipClearsIt() throws {
        let chip = ScriptedMPU6050()
        let driver = try configure(chip, motion: MotionInterruptSettings(thresholdMS2: 0.3, duration: 0.1))
        chip.state.withLock { $0.registers[0x3A] = 0x41 }
        #expect(try driver.readInterruptStatus() == MPU6050.InterruptStatus(raw: 0x41))
        #expect(try driver.readInterruptStatus().motion == false)              // cleared by the first read
    }

    @Test(arguments: [IMUChipModel.lsm6ds3, .mpu9250])   // the BMI160 has its any-motion engine: BMI160EventEngineWiringTests
    func otherChipsRefuseTheEngineNamingTheKey(chip model: IMUChipModel) {
        let source = I2CIMUSource(bus: 9, address: 0x69, chip: model, dataReady: DataReadyLine.Configuration(chip: "x", line: "1"),
                                  motionInterrupt: MotionInterruptSettings(thresholdMS2: 0.3, duration: 0.1),
                                  makeAdapter: { ScriptedBMI160() })
        #expect {
            _ = try source.start(requestedRate: 100)
        } throws: { e in
            (e as? SensorError)?.kind == .unsupported && "\(e)".contains("events.chip_motion")
        }
    }
}
