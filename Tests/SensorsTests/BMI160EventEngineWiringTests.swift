import Testing
import MotionCore
@testable import Sensors
import TestSupport

/// What the BMI160's `configure` writes for the event engines it is handed, over a scripted chip,
/// and the per-edge INT_STATUS_0/1 read through the `MotionInterruptChip` seam. Expected register
/// values are worked by hand from the data sheet (BST-BMI160-DS000-07) weights and Bosch's
/// bmi160_defs.h addresses and masks (BMI160_SensorAPI v3.8.1), not from the driver's helpers:
/// INT_EN_0 0x50 anymotion x/y/z 0x01/0x02/0x04, d_tap 0x10, s_tap 0x20; INT_EN_1 0x51 low_g 0x08,
/// drdy 0x10; INT_OUT_CTRL 0x53 int1 output_en 0x08, int1 lvl 0x02; INT_LATCH 0x54 bits 3:0;
/// INT_MAP_1 0x56 int1 drdy 0x80; INT_MAP_2 0x57 int2 low_g 0x01, anymotion 0x04, d_tap 0x10,
/// s_tap 0x20; INT_LOWHIGH_0/1/2 0x5A/0x5B/0x5C; INT_MOTION_0/1 0x5F/0x60; INT_TAP_0/1 0x63/0x64;
/// INT_STATUS_0/1 0x1C/0x1D.
@Suite("BMI160 event engines: configure and the per-edge read (host)", .ownThread)
struct BMI160EventEngineWiringTests {
    static let motion = MotionInterruptSettings(thresholdMS2: 1.0, duration: 0.02)
    static let freeFall = FreeFallInterruptSettings(thresholdG: 0.3, duration: 0.2)
    static let tap = TapInterruptSettings(thresholdG: 2.0, maximumDuration: 0.08, quietAfter: 0.02, doubleTapMaximumGap: 0.5)

    func configure(_ chip: ScriptedBMI160, motion: MotionInterruptSettings? = nil, freeFall: FreeFallInterruptSettings? = nil,
                   tap: TapInterruptSettings? = nil) throws -> BMI160 {
        let bus = try I2CBus(number: 9, path: "scripted", adapter: chip)
        let driver = BMI160(device: I2CDevice(bus: bus, address: 0x69))
        _ = try driver.configure(IMUChipSettings(rate: 100, accelRangeG: 4, gyroRangeDPS: 250, dataReadyInterrupt: true,
                                                 motionInterrupt: motion, freeFallInterrupt: freeFall, tapInterrupt: tap))
        return driver
    }

    /// The registers the engines own (thresholds, durations, INT_MAP_0/2, INT_LATCH, INT_EN_0).
    static let engineRegisters: [UInt8] = [0x50, 0x54, 0x55, 0x57, 0x5A, 0x5B, 0x5C, 0x5F, 0x60, 0x63, 0x64]

    @Test func everyEngineIsProgrammedOnINT2WithINT1LeftToDataReady() throws {
        let chip = ScriptedBMI160()
        let driver = try configure(chip, motion: Self.motion, freeFall: Self.freeFall, tap: Self.tap)
        let r = chip.state.withLock { $0.registers }
        // 100 Hz (ACC_CONF odr code 8), ±4 g (ACC_RANGE 0x05).
        #expect(r[0x40] == 0x28 && r[0x41] == 0x05)
        // anym_dur: 0.02 s × 100 Hz = 2 consecutive slope samples → 2 − 1 = 1.
        #expect(r[0x5F] == 0x01)
        // anym_th: 1.0 m/s² / 9.80665 = 101.97 mg; ±4 g → 7.81 mg per LSB: 13.06 → 13.
        #expect(r[0x60] == 13)
        // low_dur: 200 ms = (n + 1) × 2.5 ms → n = 79 = 0x4F.
        #expect(r[0x5A] == 0x4F)
        // low_th: 300 mg / 7.81 mg = 38.4 → 38 = 0x26.
        #expect(r[0x5B] == 0x26)
        // INT_LOWHIGH_2: reset 0x81 (high_hy 2 in bits 7:6, low_hy 1 in bits 1:0) | low_mode (bit 2, sum) = 0x85.
        #expect(r[0x5C] == 0x85)
        // INT_TAP_0: gap 0.5 s → tap_dur 500 ms = code 6; impulse 80 ms nearer 75 than 50 → shock bit 6;
        // quiet 20 ms → bit 7: 0x80 | 0x40 | 6 = 0xC6.
        #expect(r[0x63] == 0xC6)
        // tap_th: 2 g at ±4 g, 125 mg per LSB (62.5 mg at ±2 g, doubled) → 16.
        #expect(r[0x64] == 16)
        // INT_MAP_2: low_g 0x01 | anymotion 0x04 | d_tap 0x10 | s_tap 0x20 = 0x35; INT_MAP_0 (INT1) untouched.
        #expect(r[0x57] == 0x35 && r[0x55] == 0x00)
        // INT_MAP_1: only drdy → INT1 (bit 7).
        #expect(r[0x56] == 0x80)
        // INT_OUT_CTRL: int1 output_en 0x08 | int1 lvl (active high) 0x02, push-pull, INT2 output off: 0x0A.
        #expect(r[0x53] == 0x0A)
        // INT_LATCH: about two samples at 100 Hz = 20 ms, the code for 20 ms is 7.
        #expect(r[0x54] == 0x07)
        // INT_EN_0: anymotion x | y | z 0x07 | d_tap 0x10 | s_tap 0x20 = 0x37; INT_EN_1: drdy 0x10 | low_g 0x08 = 0x18.
        #expect(r[0x50] == 0x37 && r[0x51] == 0x18)
        #expect(driver.chipEvents == [.chipMotion, .chipFreeFall, .chipTap, .chipDoubleTap])
    }

    @Test func theEnginesAreEnabledOnlyAfterTheirThresholdsAndRouting() throws {
        let chip = ScriptedBMI160()
        _ = try configure(chip, motion: Self.motion, freeFall: Self.freeFall, tap: Self.tap)
        let writes = chip.state.withLock { $0.writes.map(\.register) }
        let lastSetting = try #require(writes.lastIndex { [0x57, 0x54, 0x5A, 0x5B, 0x5C, 0x5F, 0x60, 0x63, 0x64].contains($0) })
        let enable0 = try #require(writes.lastIndex(of: 0x50))
        let enable1 = try #require(writes.lastIndex(of: 0x51))
        #expect(enable0 > lastSetting && enable1 > lastSetting, "\(writes)")
    }

    @Test func anyMotionAloneWritesOnlyItsRegisters() throws {
        let chip = ScriptedBMI160()
        let driver = try configure(chip, motion: Self.motion)
        let s = chip.state.withLock { $0 }
        #expect(s.registers[0x50] == 0x07)          // anymotion x | y | z, no taps
        #expect(s.registers[0x51] == 0x10)          // drdy only, no low_g
        #expect(s.registers[0x57] == 0x04)          // INT2 anymotion only
        #expect(!s.writes.contains { [0x5A, 0x5B, 0x5C, 0x63, 0x64].contains($0.register) })
        #expect(driver.chipEvents == .chipMotion)
    }

    @Test func freeFallAndTapWithoutMotionLeaveTheAnyMotionFieldsAlone() throws {
        let chip = ScriptedBMI160()
        let driver = try configure(chip, freeFall: Self.freeFall, tap: Self.tap)
        let s = chip.state.withLock { $0 }
        #expect(s.registers[0x50] == 0x30)          // d_tap 0x10 | s_tap 0x20
        #expect(s.registers[0x51] == 0x18)          // drdy | low_g
        #expect(s.registers[0x57] == 0x31)          // INT2 low_g 0x01 | d_tap | s_tap
        #expect(!s.writes.contains { $0.register == 0x5F || $0.register == 0x60 })
        #expect(driver.chipEvents == [.chipFreeFall, .chipTap, .chipDoubleTap])
    }

    @Test func withoutAnEngineNothingOfItIsWritten() throws {
        let chip = ScriptedBMI160()
        let driver = try configure(chip)
        let s = chip.state.withLock { $0 }
        #expect(!s.writes.contains { Self.engineRegisters.contains($0.register) }, "\(s.writes)")
        // Data-ready as before: INT_OUT_CTRL 0x0A, INT_MAP_1 drdy → INT1, INT_EN_1 drdy.
        #expect(s.registers[0x53] == 0x0A && s.registers[0x56] == 0x80 && s.registers[0x51] == 0x10)
        #expect(driver.chipEvents.isEmpty)
    }

    @Test func theStatusPairGivesTheFlagsThroughTheSeam() throws {
        let chip = ScriptedBMI160()
        let driver: any MotionInterruptChip = try configure(chip, motion: Self.motion, freeFall: Self.freeFall, tap: Self.tap)
        // INT_STATUS_0 = anym (bit 2) | s_tap (bit 5) = 0x24; INT_STATUS_1 = low_g (bit 3) | drdy (bit 4) = 0x18.
        chip.state.withLock { $0.registers[0x1C] = 0x24; $0.registers[0x1D] = 0x18 }
        #expect(try driver.readChipEvents() == [.chipMotion, .chipFreeFall, .chipTap])
        // The same bytes on the next edge (the latch still holds them): the tap is not counted twice.
        #expect(try driver.readChipEvents() == [.chipMotion, .chipFreeFall])
        // d_tap (bit 4) rises alone.
        chip.state.withLock { $0.registers[0x1C] = 0x10; $0.registers[0x1D] = 0x10 }
        #expect(try driver.readChipEvents() == .chipDoubleTap)
    }

    @Test func bitsOfEnginesNotProgrammedAreIgnoredThroughTheSeam() throws {
        let chip = ScriptedBMI160()
        let driver: any MotionInterruptChip = try configure(chip, tap: Self.tap)
        chip.state.withLock { $0.registers[0x1C] = 0x24; $0.registers[0x1D] = 0x18 }     // anym, s_tap, low_g
        #expect(try driver.readChipEvents() == .chipTap)
    }

    @Test func shutdownDisablesTheEngines() throws {
        let chip = ScriptedBMI160()
        let driver = try configure(chip, motion: Self.motion, tap: Self.tap)
        driver.shutdown()
        let r = chip.state.withLock { $0.registers }
        #expect(r[0x50] == 0 && r[0x51] == 0)
    }

    // MARK: Status bytes → chip flags → events

    @Test func aStatusSequenceGivesOneMotionOneTapAndOneFallFromTheChip() {
        var c = MotionEventConfiguration()
        c.chipMotion = true
        c.chipFreeFall = true
        c.chipTap = true
        c.freeFall.minimumDuration = 0.2
        var detectors = MotionEventDetectors(configuration: c, sampleRate: 100)
        var decoder = BMI160.EventDecoder(enabled: [.chipMotion, .chipFreeFall, .chipTap, .chipDoubleTap])
        // At 100 Hz, INT_STATUS_1 always has drdy (0x10). Samples 100…109: anym (INT_STATUS_0 bit 2);
        // 300 and 301: s_tap (bit 5) held by the ~20 ms latch over two edges; 500…529: low_g
        // (INT_STATUS_1 bit 3, 0x18) for 30 samples.
        func status(_ i: Int) -> (UInt8, UInt8) {
            if (100..<110).contains(i) { return (0x04, 0x10) }
            if i == 300 || i == 301 { return (0x20, 0x10) }
            if (500..<530).contains(i) { return (0x00, 0x18) }
            return (0x00, 0x10)
        }
        var events: [MotionEvent] = []
        for i in 0..<800 {
            let (s0, s1) = status(i)
            let flags = decoder.decode(status0: s0, status1: s1)
            detectors.update(time: Double(i) / 100, specificForce: Vector3(0, 0, standardGravity), rotationRate: nil,
                             chipFlags: flags) { if $0.fromChip { events.append($0) } }
        }
        #expect(events.map(\.type) == [.motion, .tap, .freeFall], "\(events.map(\.type))")
        #expect(events.first?.time == 1.0)                              // the first anym sample
        #expect(events.dropFirst().first?.time == 3.0)                  // the sample where s_tap rose
        // The fall: flags 5.00…5.29 s; the chip waited low_dur = 0.2 s before the first, so it began
        // at 4.80 s and lasted 5.29 − 4.80 = 0.49 s; sent at 5.30 s, the first unflagged sample.
        let fall = events.last
        #expect(fall?.time == 5.3)
        #expect(abs((fall?.duration ?? 0) - 0.49) < 1e-9)
    }

    // MARK: I2CIMUSource: which engines a BMI160 may be given

    static let line = DataReadyLine.Configuration(chip: "no-such-gpiochip", line: "1")

    @Test func theSourceRefusesTheOrientationEngineOnABMI160NamingIt() {
        let source = I2CIMUSource(bus: 9, address: 0x69, chip: .bmi160, dataReady: Self.line,
                                  orientationInterrupt: OrientationInterruptSettings(thresholdDegrees: 60),
                                  makeAdapter: { ScriptedBMI160() })
        #expect {
            _ = try source.start(requestedRate: 100)
        } throws: { e in
            (e as? SensorError)?.kind == .unsupported && "\(e)".contains("orientation engine an lsm6dsox")
        }
    }

    @Test func theSourceHandsABMI160ItsMotionFreeFallAndTapEngines() {
        let chip = ScriptedBMI160()
        let source = I2CIMUSource(bus: 9, address: 0x69, chip: .bmi160, dataReady: Self.line,
                                  motionInterrupt: Self.motion, freeFallInterrupt: Self.freeFall, tapInterrupt: Self.tap,
                                  makeAdapter: { chip })
        // Past the engine checks and `configure`; only the (absent) GPIO chip stops it.
        #expect {
            _ = try source.start(requestedRate: 100)
        } throws: { e in
            (e as? SensorError)?.kind == .notFound
        }
        #expect(chip.state.withLock { $0.registers[0x57] } == 0x35)        // INT2: low_g | anymotion | d_tap | s_tap
    }

    @Test func withoutADataReadyLineTheSourceRefusesTheBMI160sEngines() {
        let source = I2CIMUSource(bus: 9, address: 0x69, chip: .bmi160, tapInterrupt: Self.tap, makeAdapter: { ScriptedBMI160() })
        #expect {
            _ = try source.start(requestedRate: 100)
        } throws: { e in
            (e as? SensorError)?.kind == .unsupported && "\(e)".contains("source.data_ready")
        }
    }
}
