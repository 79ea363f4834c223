import Testing
import MotionCore
@testable import Sensors

/// The LSM6DSOX's wake-up interrupt as EdgeMotion's chip motion engine: codes written by hand from
/// the threshold's LSB (WK_THS 1 LSB = FS_XL / 2^6, or FS_XL / 2^8 with WAKE_THS_W; ST
/// lsm6dso(x)_reg.h `wake_ths_w`: LSb_FS_DIV_64 / LSb_FS_DIV_256) and WAKE_DUR (1 LSB = 1 ODR
/// period), the register addresses and bits of ST's lsm6dsox_reg.h, over a scripted chip below
/// the I2C seam.
@Suite("LSM6DSOX wake-up engine (host)")
struct LSM6DSOXWakeUpEngineTests {
    /// (m/s², ±g full scale, WK_THS, WAKE_THS_W): mg = m/s² / 9.80665 × 1000; the fine step is
    /// FS/256 (7.8125 mg at ±2 g, 15.625 mg at ±4 g, 62.5 mg at ±16 g), the coarse FS/64
    /// (31.25 mg at ±2 g), used only when the fine code would pass 63.
    @Test(arguments: [
        (1.0, 2.0, 13, true),      // 101.97 mg / 7.8125 = 13.05 → 13
        (1.0, 4.0, 7, true),       // 101.97 / 15.625 = 6.53 → 7
        (1.0, 16.0, 2, true),      // 101.97 / 62.5 = 1.63 → 2
        (0.3, 4.0, 2, true),       // 30.59 / 15.625 = 1.96 → 2 (the any-motion default)
        (4.9, 2.0, 16, false),     // 499.66 / 7.8125 = 63.96 → 64 > 63: coarse 499.66 / 31.25 = 15.99 → 16
        (6.0, 2.0, 20, false),     // 611.83 / 31.25 = 19.58 → 20
        (20.0, 2.0, 63, false),    // 2039.4 / 31.25 = 65.3: the field's largest, 63
        (0.01, 2.0, 1, true),      // 1.02 / 7.8125 = 0.13: never 0, which would flag every sample
    ])
    func theThresholdUsesTheFineWeightWhileItFitsSixBits(ms2: Double, fullScaleG: Double, code: Int, fine: Bool) {
        let t = LSM6DSx.wakeUpThresholdCode(ms2: ms2, fullScaleG: fullScaleG)
        #expect(t.code == UInt8(code) && t.fine == fine, "\(t)")
    }

    /// (s, ODR Hz, WAKE_DUR): whole ODR periods, 0…3.
    @Test(arguments: [(0.1, 12.5, 1), (0.1, 104.0, 3), (0.0, 104.0, 0), (0.02, 104.0, 2), (0.04, 26.0, 1)])
    func theDurationIsWholeODRPeriodsUpToThree(seconds: Double, odr: Double, code: Int) {
        #expect(LSM6DSx.wakeUpDurationCode(seconds: seconds, odr: odr) == UInt8(code))
    }

    @Test func wakeUpSourceBitThreeTellsAWakeUpFromDataReady() {
        #expect(LSM6DSx.WakeUpSource(raw: 0x08).wakeUp)                // WU_IA
        #expect(LSM6DSx.WakeUpSource(raw: 0x0F).wakeUp)                // WU_IA with X_WU, Y_WU, Z_WU
        #expect(!LSM6DSx.WakeUpSource(raw: 0x00).wakeUp)
        #expect(!LSM6DSx.WakeUpSource(raw: 0xF7).wakeUp)               // every bit but 3 (sleep, free-fall, axes)
    }

    func configure(_ chip: ScriptedLSM6DSx, motion: MotionInterruptSettings?, model: IMUChipModel = .lsm6dsox) throws -> LSM6DSx {
        let bus = try I2CBus(number: 9, path: "scripted", adapter: chip)
        let driver = LSM6DSx(device: I2CDevice(bus: bus, address: 0x6B), model: model)
        _ = try driver.configure(IMUChipSettings(rate: 100, accelRangeG: 2, gyroRangeDPS: 250, dataReadyInterrupt: true,
                                                 motionInterrupt: motion))
        return driver
    }

    @Test func configureProgramsThresholdDurationLatchAndRoutesWakeUpToINT1BesideDataReady() throws {
        let chip = ScriptedLSM6DSx()
        let driver = try configure(chip, motion: MotionInterruptSettings(thresholdMS2: 1.0, duration: 0.1))
        let r = chip.state.withLock { $0.registers }
        #expect(r[0x5B] == 13)                // WAKE_UP_THS: WK_THS 13 × 7.8125 mg (±2 g, fine)
        #expect(r[0x5C] == 0x70)              // WAKE_UP_DUR: WAKE_DUR 3 (0.1 s at 104 Hz, clamped) << 5 | WAKE_THS_W
        #expect(r[0x56] == 0x41)              // TAP_CFG0: INT_CLR_ON_RD | LIR
        #expect(r[0x58] == 0x80)              // TAP_CFG2: INTERRUPTS_ENABLE
        #expect(r[0x5E] == 0x20)              // MD1_CFG: INT1_WU
        #expect(r[0x0D] == 0x01)              // INT1_CTRL: INT1_DRDY_XL still on
        #expect(driver.motionEngineEnabled)
    }

    @Test(arguments: [(IMUChipModel.lsm6dsox, false), (.lsm6ds3, true)])
    func withoutTheEngineOrOnTheLSM6DS3NothingOfItIsWritten(model: IMUChipModel, askForIt: Bool) throws {
        let chip = ScriptedLSM6DSx(model: model)
        let driver = try configure(chip, motion: askForIt ? MotionInterruptSettings(thresholdMS2: 1.0, duration: 0.1) : nil, model: model)
        let s = chip.state.withLock { $0 }
        #expect(!s.writes.contains { [0x56, 0x58, 0x5B, 0x5C, 0x5E].contains($0.register) })
        #expect(!driver.motionEngineEnabled)
    }

    @Test func theMotionFlagIsWakeUpSourceBitThreeThroughTheMotionInterruptChipSeam() throws {
        let chip = ScriptedLSM6DSx()
        let driver: any MotionInterruptChip = try configure(chip, motion: MotionInterruptSettings(thresholdMS2: 0.3, duration: 0.1))
        chip.state.withLock { $0.registers[0x1B] = 0x08 }
        #expect(try driver.readMotionFlag())
        chip.state.withLock { $0.registers[0x1B] = 0x00 }
        #expect(try !driver.readMotionFlag())
    }
}
