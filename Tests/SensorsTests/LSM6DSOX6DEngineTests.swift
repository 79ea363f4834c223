import Testing
import MotionCore
@testable import Sensors

/// The LSM6DSOX 6D orientation engine as `configure` programs it and the per-edge burst reads it,
/// over a scripted chip. Register values worked by hand from ST's lsm6dsox_reg.h layout:
/// TAP_THS_6D 0x59 = TAP_THS_Z b4:0 | SIXD_THS b6:5 (80° 0, 70° 1, 60° 2, 50° 3); MD1_CFG 0x5E
/// INT1_6D b2 (beside INT1_DOUBLE_TAP b3, INT1_SINGLE_TAP b6); CTRL8_XL 0x17 LOW_PASS_ON_6D b0;
/// D6D_SRC 0x1D (ZH b5, YH b3, D6D_IA b6) read after WAKE_UP_SRC 0x1B and TAP_SRC 0x1C.
@Suite("LSM6DSOX 6D engine (host)")
struct LSM6DSOX6DEngineTests {
    func configure(_ chip: ScriptedLSM6DSx, degrees: Double, tap: TapInterruptSettings? = nil) throws -> LSM6DSx {
        let bus = try I2CBus(number: 9, path: "scripted", adapter: chip)
        let driver = LSM6DSx(device: I2CDevice(bus: bus, address: 0x6B), model: .lsm6dsox)
        _ = try driver.configure(IMUChipSettings(rate: 100, accelRangeG: 4, gyroRangeDPS: 250, dataReadyInterrupt: true,
                                                 tapInterrupt: tap, orientationInterrupt: OrientationInterruptSettings(thresholdDegrees: degrees)))
        return driver
    }

    @Test func withTapTheSixDThresholdSitsBesideTapThsZAndINT1_6DBesideTheTapRouting() throws {
        let chip = ScriptedLSM6DSx()
        let tap = TapInterruptSettings(thresholdG: 2.0, maximumDuration: 0.25, quietAfter: 0.05, doubleTapMaximumGap: 0.6)
        let driver = try configure(chip, degrees: 60, tap: tap)
        let r = chip.state.withLock { $0.registers }
        #expect(r[0x59] == 0x50)              // TAP_THS_6D: SIXD_THS 2 (60°) << 5 | TAP_THS_Z 16 (2 g / 125 mg)
        #expect(r[0x5E] == 0x4C)              // MD1_CFG: INT1_SINGLE_TAP | INT1_DOUBLE_TAP | INT1_6D
        #expect(r[0x17] == 0x61)              // CTRL8_XL: HPCF_XL 3 (104 Hz ÷ 45 = 2.3 Hz) << 5 | LOW_PASS_ON_6D
        #expect(r[0x58] == 0x90)              // TAP_CFG2: INTERRUPTS_ENABLE | TAP_THS_Y 16
        #expect(driver.chipEvents == [.chipTap, .chipDoubleTap, .chipOrientation])
    }

    @Test func aloneTheSixDEngineIsTheOnlyOneRouted() throws {
        let chip = ScriptedLSM6DSx()
        let driver = try configure(chip, degrees: 50)
        let r = chip.state.withLock { $0.registers }
        #expect(r[0x59] == 0x60)              // SIXD_THS 3 (50°) << 5, no tap threshold, D4D_EN 0
        #expect(r[0x5E] == 0x04)              // INT1_6D only
        #expect(r[0x17] == 0x61)
        #expect(r[0x58] == 0x80)              // INTERRUPTS_ENABLE (the basic interrupts include 6D)
        #expect(r[0x56] == 0x41)              // latched, cleared on read; no tap axes
        #expect(driver.chipEvents == .chipOrientation)
    }

    /// LPF2 cut-offs ODR ÷ 4, 10, 20, 45, 100, 200, 400, 800, worked by hand; the code nearest the
    /// software detector's 2 Hz: 416 Hz ÷ 200 = 2.08 (code 5), 104 Hz ÷ 45 = 2.31 (3), 26 Hz ÷ 10 = 2.6
    /// (1; ÷ 20 = 1.3 is further), 12.5 Hz ÷ 4 = 3.1 or ÷ 10 = 1.25 (1), 1666 Hz ÷ 800 = 2.08 (7).
    @Test func theSixDLowPassIsSetNearTheSoftwaresTwoHertz() {
        #expect(LSM6DSx.control8Accel6D(odr: 416) == 0xA1)
        #expect(LSM6DSx.control8Accel6D(odr: 104) == 0x61)
        #expect(LSM6DSx.control8Accel6D(odr: 26) == 0x21)
        #expect(LSM6DSx.control8Accel6D(odr: 12.5) == 0x21)
        #expect(LSM6DSx.control8Accel6D(odr: 1666) == 0xE1)
    }

    @Test func anAngleTheChipHasNotIsRefused() throws {
        #expect(throws: SensorError.self) { try configure(ScriptedLSM6DSx(), degrees: 65) }
    }

    @Test func tapAloneLeavesCTRL8_XLAndINT1_6DAlone() throws {
        let chip = ScriptedLSM6DSx()
        let bus = try I2CBus(number: 9, path: "scripted", adapter: chip)
        let driver = LSM6DSx(device: I2CDevice(bus: bus, address: 0x6B), model: .lsm6dsox)
        _ = try driver.configure(IMUChipSettings(rate: 100, accelRangeG: 4, gyroRangeDPS: 250, dataReadyInterrupt: true,
                                                 tapInterrupt: TapInterruptSettings(thresholdG: 2.0, maximumDuration: 0.25, quietAfter: 0.05, doubleTapMaximumGap: 0.6)))
        let s = chip.state.withLock { $0 }
        #expect(!s.writes.contains { $0.register == 0x17 })
        #expect(s.registers[0x5E] == 0x48 && s.registers[0x59] == 0x10)
    }

    @Test func theThirdByteOfTheBurstGivesTheFaceOnlyWithD6D_IA() throws {
        let chip = ScriptedLSM6DSx()
        let driver: any MotionInterruptChip = try configure(chip, degrees: 60)
        chip.state.withLock { $0.registers[0x1D] = 0x60 }                         // D6D_IA | ZH
        #expect(try driver.readChipEvents().chipFace == .faceUp)
        chip.state.withLock { $0.registers[0x1D] = 0x48 }                         // D6D_IA | YH
        #expect(try driver.readChipEvents() == .chipOrientation(.portrait))
        chip.state.withLock { $0.registers[0x1D] = 0x20 }                         // ZH without D6D_IA: no event
        #expect(try driver.readChipEvents().rawValue == 0)
        chip.state.withLock { $0.registers[0x1B] = 0x20; $0.registers[0x1D] = 0x60 } // FF_IA: free fall not programmed
        #expect(try driver.readChipEvents() == .chipOrientation(.faceUp))
    }

    @Test func aD6DSourceOfAnEngineNotProgrammedIsIgnored() {
        #expect(LSM6DSx.decodeEventSources(wakeUpSource: 0, tapSource: 0, d6dSource: 0x60, enabled: .chipTap).rawValue == 0)
        #expect(LSM6DSx.decodeEventSources(wakeUpSource: 0, tapSource: 0x60, d6dSource: 0x50,
                                           enabled: [.chipTap, .chipOrientation]) == [.chipTap, .chipOrientation(.faceDown)])
    }
}
