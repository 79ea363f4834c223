import Testing
import MotionCore
@testable import Sensors

/// The BMI160's any-motion, low-g and tap codes and its per-edge status decoding. Expected codes
/// are worked by hand from the register weights as researched from Bosch's bmi160_defs.h
/// (anym_th 3.91/7.81/15.63/31.25 mg at ±2/4/8/16 g; low_th 7.81 mg; low_dur (n+1)·2.5 ms;
/// tap_th 62.5 mg at ±2 g; INT_STATUS_0 anym bit 2, d_tap bit 4, s_tap bit 5; INT_STATUS_1 low_g bit 3).
@Suite("BMI160 event engines: codes and status decoding (host)")
struct BMI160EventEngineTests {
    /// (m/s², ±g, anym_th).
    @Test(arguments: [(1.0, 4.0, 13), (0.3, 2.0, 8), (1.0, 16.0, 3), (100.0, 2.0, 255), (0.001, 4.0, 1)])
    func theAnyMotionThresholdIsInRangeScaledSteps(ms2: Double, fullScaleG: Double, code: Int) {
        // 1.0 / 9.80665 = 0.10197 g = 102.0 mg / 7.81 = 13.06 → 13; 0.3 m/s² = 30.6 mg / 3.91 = 7.83 → 8;
        // 102.0 mg / 31.25 = 3.26 → 3; 100 m/s² = 10.2 g / 3.91 mg = 2608 → 255 (8 bits); 0.1 mg → 1 (never 0)
        #expect(BMI160.anyMotionThresholdCode(ms2: ms2, fullScaleG: fullScaleG) == UInt8(code))
    }

    /// (s, Hz, anym_dur): consecutive samples − 1, at most 4 samples.
    @Test(arguments: [(0.02, 100.0, 1), (0.0, 100.0, 0), (0.04, 100.0, 3), (1.0, 100.0, 3), (0.01, 100.0, 0)])
    func theAnyMotionDurationIsSamplesMinusOne(seconds: Double, odr: Double, code: Int) {
        // 0.02 s · 100 Hz = 2 samples → 1; 0 → at least 1 sample → 0; 4 samples → 3; 100 → 4 (max) → 3; 1 → 0
        #expect(BMI160.anyMotionDurationCode(seconds: seconds, odr: odr) == UInt8(code))
    }

    @Test func theLowGThresholdAndDurationAreTheWorkedCodes() {
        // 300 mg / 7.81 mg = 38.4 → 38 (0x26)
        #expect(BMI160.lowGThresholdCode(g: 0.3) == 0x26)
        // 200 ms / 2.5 ms − 1 = 79 (0x4F); 400 / 2.5 − 1 = 159; 10 s → 255 (8 bits)
        #expect(BMI160.lowGDurationCode(seconds: 0.2) == 0x4F)
        #expect(BMI160.lowGDurationCode(seconds: 0.4) == 159)
        #expect(BMI160.lowGDurationCode(seconds: 10) == 255)
    }

    /// (g, ±g, tap_th).
    @Test(arguments: [(2.0, 4.0, 16), (2.0, 2.0, 31), (1.0, 2.0, 16), (2.0, 16.0, 4)])
    func theTapThresholdIsFullScaleOverThirtyTwo(g: Double, fullScaleG: Double, code: Int) {
        // 2000 / 125 = 16; 2000 / 62.5 = 32 → 31 (5 bits); 1000 / 62.5 = 16; 2000 / 500 = 4
        #expect(BMI160.tapThresholdCode(g: g, fullScaleG: fullScaleG) == UInt8(code))
    }

    @Test func theTapTimingRegisterPacksDurShockAndQuiet() {
        // gap 0.5 s → dur code 6; impulse 0.08 s nearer 75 than 50 ms → bit 6; quiet 0.02 s → bit 7: 0xC6
        let a = TapInterruptSettings(thresholdG: 2, maximumDuration: 0.08, quietAfter: 0.02, doubleTapMaximumGap: 0.5)
        #expect(BMI160.tapTimingRegister(a) == 0xC6)
        // gap 0.3 s: 250 (50 ms away) vs 375 (75) → code 4; impulse 0.05 → 50 ms (0); quiet 0.03 → 30 ms (0): 0x04
        let b = TapInterruptSettings(thresholdG: 2, maximumDuration: 0.05, quietAfter: 0.03, doubleTapMaximumGap: 0.3)
        #expect(BMI160.tapTimingRegister(b) == 0x04)
    }

    /// (Hz, INT_LATCH): about two sample periods.
    @Test(arguments: [(100.0, 7), (200.0, 6), (50.0, 8), (1600.0, 3)])
    func theTemporaryLatchIsAboutTwoSamplePeriods(odr: Double, code: Int) {
        // 100 Hz: 20 ms → 7; 200 Hz: 10 ms → 6; 50 Hz: 40 ms → 8; 1600 Hz: 1.25 ms → 3
        #expect(BMI160.temporaryLatchCode(odr: odr) == UInt8(code))
    }

    @Test func motionAndFreeFallFollowTheirStatusBits() {
        var d = BMI160.EventDecoder(enabled: [.chipMotion, .chipFreeFall, .chipTap, .chipDoubleTap])
        #expect(d.decode(status0: 0x04, status1: 0x10) == .chipMotion)        // anym bit 2 (+ drdy)
        #expect(d.decode(status0: 0x04, status1: 0x10) == .chipMotion)        // still held: again
        #expect(d.decode(status0: 0x00, status1: 0x18) == .chipFreeFall)      // low_g bit 3
        #expect(d.decode(status0: 0x00, status1: 0x10).rawValue == 0)         // drdy only: nothing
        #expect(d.decode(status0: 0xCB, status1: 0xE7).rawValue == 0)         // every other bit: nothing
    }

    @Test func aTapFlagsOnlyTheSampleWhereItsBitRises() {
        var d = BMI160.EventDecoder(enabled: [.chipMotion, .chipFreeFall, .chipTap, .chipDoubleTap])
        #expect(d.decode(status0: 0x20, status1: 0x10) == .chipTap)           // s_tap bit 5 rises
        #expect(d.decode(status0: 0x20, status1: 0x10).rawValue == 0)         // latched second sample: no flag
        #expect(d.decode(status0: 0x00, status1: 0x10).rawValue == 0)
        #expect(d.decode(status0: 0x30, status1: 0x10) == [.chipTap, .chipDoubleTap]) // both rise (d_tap bit 4)
        #expect(d.decode(status0: 0x10, status1: 0x10).rawValue == 0)         // d_tap held, s_tap fell
    }

    @Test func bitsOfEnginesNotProgrammedAreIgnored() {
        var d = BMI160.EventDecoder(enabled: [.chipMotion, .chipFreeFall])
        #expect(d.decode(status0: 0x34, status1: 0x18) == [.chipMotion, .chipFreeFall])
    }
}
