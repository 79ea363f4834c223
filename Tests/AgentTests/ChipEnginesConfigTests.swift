import Testing
import Messaging
import MotionCore
import Sensors
@testable import Agent

/// `events.chip_engines`: which chip engines `events.chip_motion` hands events to — the
/// LSM6DSOX's free-fall and tap engines beside the wake-up engine, the BMI160's low-g and tap
/// beside its any-motion engine, the MPU-6050's motion only;
/// `on` with an engine the chip lacks is refused naming the key and the engine; and the chip's
/// free-fall and tap events say `"source":"chip"` on the wire.
@Suite("Chip engines config")
struct ChipEnginesConfigTests {
    typealias S = ConfigTestSupport

    static let lsm6dsoxWithINT = "source:\n  type: i2c\n  i2c: {bus: 1, chip: lsm6dsox, address: 0x6b}\n  data_ready: {chip: gpiochip0, line: \"17\"}\n"
    static let mpu6050WithINT = "source:\n  type: i2c\n  i2c: {bus: 1, chip: mpu6050}\n  data_ready: {chip: gpiochip0, line: \"17\"}\n"
    static let bmi160WithINT = "source:\n  type: i2c\n  i2c: {bus: 1, chip: bmi160, address: 0x69}\n  data_ready: {chip: gpiochip0, line: \"17\"}\n"

    @Test func autoHandsFreeFallAndTapToTheLSM6DSOXInTheSoftwareDetectorsUnits() throws {
        // 416 Hz: the driver's ODR is 416 Hz, what ST recommends for the tap engine.
        let c = try ConfigurationLoader.parse(yaml: Self.lsm6dsoxWithINT + "  rate: 416\n"
            + "events: {enabled: true, free_fall_g: 0.35, free_fall_min_s: 0.3, tap_g: 3, double_tap_gap_s: 0.5}\n", fileName: "t.yaml")
        #expect(c.events.chipEngines == nil)                              // absent: every engine the chip has
        #expect(c.events.detectors.chipMotion && c.events.detectors.chipFreeFall && c.events.detectors.chipTap)
        #expect(c.source.chipFreeFall?.thresholdG == 0.35 && c.source.chipFreeFall?.duration == 0.3)
        #expect(c.source.chipTap?.thresholdG == 3 && c.source.chipTap?.doubleTapMaximumGap == 0.5)
    }

    /// The LSM6DSOX's ODR is the driver's table rate at or above source.rate (12.5, 26, 52, 104,
    /// 208, 416 … Hz); ST recommends 416 Hz or more for its tap engine (AN5272). With chip_motion
    /// auto and no chip_engines list, tap stays with the software detector at 100–415 Hz (ODR
    /// 104 or 208 Hz), goes to the chip at 416 Hz, and to the chip below 100 Hz, where the software
    /// detector cannot run; listed in chip_engines, or with chip_motion on, it goes to the chip at
    /// any rate (and `ConfigurationAdvice` warns).
    @Test func autoKeepsTapInSoftwareWhereTheLSM6DSOXsODRIsBelow416Hz() throws {
        func chipTap(_ rate: Int, _ events: String = "events: {enabled: true}\n") throws -> Bool {
            let c = try ConfigurationLoader.parse(yaml: Self.lsm6dsoxWithINT + "  rate: \(rate)\n" + events, fileName: "t.yaml")
            #expect(c.events.detectors.chipTap == (c.source.chipTap != nil))
            #expect(c.events.detectors.chipMotion && c.events.detectors.chipFreeFall, "the other engines stay with the chip at \(rate) Hz")
            return c.events.detectors.chipTap
        }
        #expect(try chipTap(200) == false)
        #expect(try chipTap(100) == false)
        #expect(try chipTap(400) == true)      // 400 Hz: ODR 416 Hz
        #expect(try chipTap(416) == true)
        #expect(try chipTap(50) == true)
        #expect(try chipTap(200, "events: {enabled: true, chip_engines: [motion, free_fall, tap]}\n") == true)
        #expect(try chipTap(200, "events: {enabled: true, chip_motion: on}\n") == true)
    }

    @Test func chipEnginesPicksWhichTheOthersStayWithSoftware() throws {
        let c = try ConfigurationLoader.parse(yaml: Self.lsm6dsoxWithINT + "events: {enabled: true, chip_engines: [tap]}\n", fileName: "t.yaml")
        #expect(c.events.detectors.chipTap && !c.events.detectors.chipMotion && !c.events.detectors.chipFreeFall)
        #expect(c.source.chipTap != nil && c.source.chipFreeFall == nil && c.source.chipMotionThresholdMS2 == nil)
    }

    @Test func autoOnAnMPU6050GivesItMotionOnlyAndLeavesFreeFallAndTapToSoftware() throws {
        let c = try ConfigurationLoader.parse(yaml: Self.mpu6050WithINT + "events: {enabled: true}\n", fileName: "t.yaml")
        #expect(c.events.detectors.chipMotion && !c.events.detectors.chipFreeFall && !c.events.detectors.chipTap)
        #expect(c.source.chipFreeFall == nil && c.source.chipTap == nil)
    }

    @Test func onWithAListedEngineTheChipLacksIsRefusedNamingTheKeyAndTheEngine() throws {
        let problems = S.problems(Self.mpu6050WithINT + "events: {enabled: true, chip_motion: on, chip_engines: [motion, tap]}\n")
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.contains("events.chip_engines") == true && problems.first?.contains("mpu6050's tap engine") == true, "\(problems)")
        #expect(problems.first?.contains("(lsm6dsox, bmi160 only)") == true, "\(problems)")       // the chips that have a tap engine
        _ = try ConfigurationLoader.parse(yaml: Self.mpu6050WithINT + "events: {enabled: true, chip_motion: on, chip_engines: [motion]}\n",
                                          fileName: "t.yaml")
        // Without chip_engines, on means every engine the chip has: the MPU-6050's motion.
        let c = try ConfigurationLoader.parse(yaml: Self.mpu6050WithINT + "events: {enabled: true, chip_motion: on}\n", fileName: "t.yaml")
        #expect(c.events.detectors.chipMotion && !c.events.detectors.chipTap)
    }

    @Test func autoHandsMotionFreeFallAndTapToTheBMI160InTheSoftwareDetectorsUnits() throws {
        let c = try ConfigurationLoader.parse(yaml: Self.bmi160WithINT
            + "events: {enabled: true, motion_threshold_ms2: 1.2, free_fall_g: 0.35, free_fall_min_s: 0.3, tap_g: 3, double_tap_gap_s: 0.5}\n",
                                              fileName: "t.yaml")
        #expect(c.events.detectors.chipMotion && c.events.detectors.chipFreeFall && c.events.detectors.chipTap)
        #expect(c.source.chipMotionThresholdMS2 == 1.2)
        #expect(c.source.chipFreeFall == FreeFallInterruptSettings(thresholdG: 0.35, duration: 0.3))
        #expect(c.source.chipTap?.thresholdG == 3 && c.source.chipTap?.doubleTapMaximumGap == 0.5)
        // The BMI160 has no 6D engine EdgeMotion drives: orientation stays with software.
        #expect(!c.events.detectors.chipOrientation && c.source.chipOrientation == nil)
    }

    @Test func onWithABMI160AndItsEnginesIsAccepted() throws {
        let c = try ConfigurationLoader.parse(yaml: Self.bmi160WithINT + "events: {enabled: true, chip_motion: on, chip_engines: [motion, free_fall, tap]}\n",
                                              fileName: "t.yaml")
        #expect(c.events.detectors.chipMotion && c.events.detectors.chipFreeFall && c.events.detectors.chipTap)
    }

    @Test func onWithTheBMI160sMissingOrientationEngineIsRefusedNamingTheChipThatHasIt() {
        let problems = S.problems(Self.bmi160WithINT + "events: {enabled: true, chip_motion: on, chip_engines: [tap, orientation]}\n")
        #expect(problems.contains { $0.contains("events.chip_engines") && $0.contains("bmi160's orientation engine") && $0.contains("(lsm6dsox only)") },
                "\(problems)")
    }

    @Test func aBMI160WithItsFIFOOnLeavesEveryEngineToSoftware() throws {
        let yaml = "source:\n  type: i2c\n  i2c: {bus: 1, chip: bmi160, address: 0x69, fifo: true}\n  data_ready: {chip: gpiochip0, line: \"17\"}\n"
        let c = try ConfigurationLoader.parse(yaml: yaml + "events: {enabled: true}\n", fileName: "t.yaml")
        #expect(!c.events.detectors.chipMotion && !c.events.detectors.chipFreeFall && !c.events.detectors.chipTap)
        #expect(c.source.chipFreeFall == nil && c.source.chipTap == nil && c.source.chipMotionThresholdMS2 == nil)
        let problems = S.problems(yaml + "events: {enabled: true, chip_motion: on}\n")
        #expect(problems.contains { $0.contains("events.chip_motion") && $0.contains("fifo") }, "\(problems)")
    }

    @Test func anUnknownEngineIsRefusedNamingTheItem() {
        let problems = S.problems("events: {chip_engines: [motion, steps]}\n")
        #expect(problems.contains { $0.contains("events.chip_engines[1]") && $0.contains("free_fall") }, "\(problems)")
    }

    @Test func offLeavesEveryEngineToSoftware() throws {
        let c = try ConfigurationLoader.parse(yaml: Self.lsm6dsoxWithINT + "events: {enabled: true, chip_motion: off}\n", fileName: "t.yaml")
        #expect(!c.events.detectors.chipFreeFall && !c.events.detectors.chipTap && c.source.chipFreeFall == nil && c.source.chipTap == nil)
    }

    @Test func theChipsFreeFallAndTapEventsSaySourceChip() {
        let json = ChipMotionConfigTests.json
        var tap = MotionEvent(type: .doubleTap, time: 3, onset: 3)
        tap.fromChip = true
        #expect(json(tap) == #"{"type":"double_tap","t_s":3,"onset_s":3,"source":"chip"}"#)          // no peak_g or gap_s: the chip has none
        var fall = MotionEvent(type: .freeFall, time: 1.3, onset: 0.8)
        fall.duration = 0.5
        fall.dropHeight = 1.226
        fall.fromChip = true
        #expect(json(fall) == #"{"type":"free_fall","t_s":1.3,"onset_s":0.8,"duration_s":0.5,"drop_height_m":1.226,"source":"chip"}"#)
    }
}
