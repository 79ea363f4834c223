import Testing
import MotionCore
@testable import Sensors

/// The LSM6DSOX's free-fall and single/double-tap engines beside its wake-up engine: register
/// codes worked by hand from the data sheet's weights (FF_THS codes 156…500 mg, FF_DUR 1 LSB =
/// 1 ODR period over 6 bits; TAP_THS 1 LSB = FS/2^5; INT_DUR2 SHOCK 4/8/16/24, QUIET 2/4/8/12,
/// DUR 16/32/64… ODR periods), addresses and bits from ST's lsm6dsox_reg.h, over a scripted chip.
@Suite("LSM6DSOX free-fall and tap engines (host)")
struct LSM6DSOXFreeFallTapEngineTests {
    /// (g, FF_THS): the nearest of 156, 219, 250, 312, 344, 406, 469, 500 mg.
    @Test(arguments: [(0.3, 3), (0.05, 0), (0.16, 0), (0.2, 1), (0.25, 2), (0.33, 4), (0.45, 6), (0.8, 7)])
    func theFreeFallThresholdIsTheNearestOfTheEightCodes(g: Double, code: Int) {
        // 0.3: |312−300| = 12 < |250−300| = 50 → 3; 0.2: |219−200| = 19 < 44 → 1; 0.33: 344 (14) vs 312 (18) → 4
        #expect(LSM6DSx.freeFallThresholdCode(g: g) == UInt8(code))
    }

    /// (s, ODR Hz, FF_DUR): whole ODR periods, 0…63.
    @Test(arguments: [(0.2, 104.0, 21), (0.4, 104.0, 42), (1.0, 104.0, 63), (0.2, 12.5, 3), (0.0, 104.0, 0)])
    func theFreeFallDurationIsWholeODRPeriodsOverSixBits(seconds: Double, odr: Double, code: Int) {
        // 0.2 × 104 = 20.8 → 21; 0.4 × 104 = 41.6 → 42; 104 → 63 (the field's largest); 2.5 → 3 (rounded half up)
        #expect(LSM6DSx.freeFallDurationCode(seconds: seconds, odr: odr) == UInt8(code))
    }

    /// (g, ±g, TAP_THS): FS/32 is 62.5 mg at ±2 g, 125 mg at ±4 g, 500 mg at ±16 g; 1…31.
    @Test(arguments: [(2.0, 4.0, 16), (2.0, 2.0, 31), (1.0, 2.0, 16), (2.0, 16.0, 4), (0.01, 4.0, 1), (0.6, 4.0, 5)])
    func theTapThresholdIsFullScaleOverThirtyTwo(g: Double, fullScaleG: Double, code: Int) {
        // 2 / 0.125 = 16; 2 / 0.0625 = 32 > 31 → 31; 1 / 0.0625 = 16; 2 / 0.5 = 4; 0.08 → never 0; 0.6 / 0.125 = 4.8 → 5
        #expect(LSM6DSx.tapThresholdCode(g: g, fullScaleG: fullScaleG) == UInt8(code))
    }

    @Test func theTapTimingIsTheNearestShockQuietAndDurCodes() {
        // At 104 Hz: 0.25 s = 26 periods → SHOCK 24 (3); 0.05 s = 5.2 → QUIET 4 (1); 0.6 s = 62.4 → DUR 64 (2).
        let t = LSM6DSx.tapTimingCodes(TapInterruptSettings(thresholdG: 2, maximumDuration: 0.25, quietAfter: 0.05, doubleTapMaximumGap: 0.6), odr: 104)
        #expect(t.shock == 3 && t.quiet == 1 && t.dur == 2, "\(t)")
        // At 416 Hz: 0.02 s = 8.32 → SHOCK 8 (1); 0.01 s = 4.16 → QUIET 4 (1); 0.3 s = 124.8 → DUR 128 (4).
        let u = LSM6DSx.tapTimingCodes(TapInterruptSettings(thresholdG: 2, maximumDuration: 0.02, quietAfter: 0.01, doubleTapMaximumGap: 0.3), odr: 416)
        #expect(u.shock == 1 && u.quiet == 1 && u.dur == 4, "\(u)")
        // 0.005 s at 104 Hz = 0.52 periods: the shortest of each (SHOCK 0 = 4, QUIET 0 = 2, DUR 0 = 16).
        let v = LSM6DSx.tapTimingCodes(TapInterruptSettings(thresholdG: 2, maximumDuration: 0.005, quietAfter: 0.005, doubleTapMaximumGap: 0.005), odr: 104)
        #expect(v.shock == 0 && v.quiet == 0 && v.dur == 0, "\(v)")
    }

    /// (WAKE_UP_SRC, TAP_SRC, flags) with every engine programmed.
    @Test(arguments: [
        (0x00, 0x00, IMUSample.Flags()),
        (0x08, 0x00, IMUSample.Flags.chipMotion),                   // WU_IA
        (0x20, 0x00, IMUSample.Flags.chipFreeFall),                 // FF_IA
        (0x28, 0x00, [IMUSample.Flags.chipMotion, .chipFreeFall]),
        (0x00, 0x60, IMUSample.Flags.chipTap),                      // TAP_IA | SINGLE_TAP
        (0x00, 0x50, IMUSample.Flags.chipDoubleTap),                // TAP_IA | DOUBLE_TAP
        (0x00, 0x71, [IMUSample.Flags.chipTap, .chipDoubleTap]),    // both, Z_TAP
        (0xD7, 0x8F, IMUSample.Flags()),                            // every other bit: axes, sleep state, TAP_SIGN, TAP_IA alone
    ] as [(Int, Int, IMUSample.Flags)])
    func theSourceBytesDecodeIntoChipFlags(wakeUp: Int, tap: Int, flags: IMUSample.Flags) {
        #expect(LSM6DSx.decodeEventSources(wakeUpSource: UInt8(wakeUp), tapSource: UInt8(tap), enabled: .chipEvents) == flags)
    }

    @Test func aBitOfAnEngineThatWasNotProgrammedIsIgnored() {
        #expect(LSM6DSx.decodeEventSources(wakeUpSource: 0x28, tapSource: 0x70, enabled: .chipMotion) == .chipMotion)
    }

    func configure(_ chip: ScriptedLSM6DSx, motion: MotionInterruptSettings? = nil, freeFall: FreeFallInterruptSettings? = nil,
                   tap: TapInterruptSettings? = nil, model: IMUChipModel = .lsm6dsox) throws -> LSM6DSx {
        let bus = try I2CBus(number: 9, path: "scripted", adapter: chip)
        let driver = LSM6DSx(device: I2CDevice(bus: bus, address: 0x6B), model: model)
        _ = try driver.configure(IMUChipSettings(rate: 100, accelRangeG: 4, gyroRangeDPS: 250, dataReadyInterrupt: true,
                                                 motionInterrupt: motion, freeFallInterrupt: freeFall, tapInterrupt: tap))
        return driver
    }

    static let tap = TapInterruptSettings(thresholdG: 2.0, maximumDuration: 0.25, quietAfter: 0.05, doubleTapMaximumGap: 0.6)

    @Test func configureProgramsEveryEngineAndRoutesThemAllToINT1() throws {
        let chip = ScriptedLSM6DSx()
        let driver = try configure(chip, motion: MotionInterruptSettings(thresholdMS2: 1.0, duration: 0.1),
                                   freeFall: FreeFallInterruptSettings(thresholdG: 0.3, duration: 0.4), tap: Self.tap)
        let r = chip.state.withLock { $0.registers }
        // ODR 104 Hz (100 asked), ±4 g.
        #expect(r[0x5D] == 0x53)              // FREE_FALL: FF_DUR[4:0] = 42 & 31 = 10 << 3 | FF_THS 3 (312 mg)
        #expect(r[0x5C] == 0xF0)              // WAKE_UP_DUR: FF_DUR5 (42 ≥ 32) | WAKE_DUR 3 << 5 | WAKE_THS_W
        #expect(r[0x5B] == 0x87)              // WAKE_UP_THS: SINGLE_DOUBLE_TAP | WK_THS 7 (101.97 mg / 15.625)
        #expect(r[0x57] == 16)                // TAP_CFG1: TAP_THS_X 16 (2 g / 125 mg), priority XYZ
        #expect(r[0x58] == 0x90)              // TAP_CFG2: INTERRUPTS_ENABLE | TAP_THS_Y 16
        #expect(r[0x59] == 16)                // TAP_THS_6D: TAP_THS_Z 16
        #expect(r[0x5A] == 0x27)              // INT_DUR2: DUR 2 << 4 | QUIET 1 << 2 | SHOCK 3
        #expect(r[0x56] == 0x4F)              // TAP_CFG0: INT_CLR_ON_RD | TAP_X/Y/Z_EN | LIR
        #expect(r[0x5E] == 0x78)              // MD1_CFG: INT1_SINGLE_TAP | INT1_WU | INT1_FF | INT1_DOUBLE_TAP
        #expect(r[0x0D] == 0x01)              // INT1_CTRL: INT1_DRDY_XL still on
        #expect(driver.chipEvents == [.chipMotion, .chipFreeFall, .chipTap, .chipDoubleTap])
    }

    @Test func freeFallAloneLeavesTheWakeUpAndTapFieldsAtZero() throws {
        let chip = ScriptedLSM6DSx()
        let driver = try configure(chip, freeFall: FreeFallInterruptSettings(thresholdG: 0.3, duration: 0.2))
        let r = chip.state.withLock { $0.registers }
        #expect(r[0x5D] == 0xAB)              // FF_DUR 21 << 3 | FF_THS 3
        #expect(r[0x5C] == 0x00)              // 21 < 32: no FF_DUR5, no wake-up duration
        #expect(r[0x5B] == 0x00)              // no WK_THS, no double tap
        #expect(r[0x56] == 0x41)              // latched, cleared on read; no tap axes
        #expect(r[0x58] == 0x80)
        #expect(r[0x5E] == 0x10)              // INT1_FF only
        #expect(driver.chipEvents == .chipFreeFall && !driver.motionEngineEnabled)
    }

    @Test func onTheLSM6DS3NoneOfItIsWritten() throws {
        let chip = ScriptedLSM6DSx(model: .lsm6ds3)
        let driver = try configure(chip, freeFall: FreeFallInterruptSettings(thresholdG: 0.3, duration: 0.2), tap: Self.tap, model: .lsm6ds3)
        let s = chip.state.withLock { $0 }
        #expect(!s.writes.contains { (0x56...0x5E).contains($0.register) })
        #expect(driver.chipEvents.isEmpty)
    }

    @Test func bothSourceRegistersGiveTheFlagsThroughTheSeam() throws {
        let chip = ScriptedLSM6DSx()
        let driver: any MotionInterruptChip = try configure(chip, freeFall: FreeFallInterruptSettings(thresholdG: 0.3, duration: 0.2), tap: Self.tap)
        chip.state.withLock { $0.registers[0x1B] = 0x20; $0.registers[0x1C] = 0x60 }
        #expect(try driver.readChipEvents() == [.chipFreeFall, .chipTap])       // FF_IA in WAKE_UP_SRC, SINGLE_TAP in TAP_SRC
        chip.state.withLock { $0.registers[0x1B] = 0x08; $0.registers[0x1C] = 0x50 }
        #expect(try driver.readChipEvents() == .chipDoubleTap)                    // WU_IA ignored: wake-up not programmed
    }
}
