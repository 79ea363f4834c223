import Testing
import Messaging
import MotionCore
@testable import Agent

/// `events.chip_engines`: which chip engines `events.chip_motion` hands events to — the
/// LSM6DSOX's free-fall and tap engines beside the wake-up engine, the MPU-6050's motion only;
/// `on` with an engine the chip lacks is refused naming the key and the engine; and the chip's
/// free-fall and tap events say `"source":"chip"` on the wire.
@Suite("Chip engines config")
struct ChipEnginesConfigTests {
    typealias S = ConfigTestSupport

    static let lsm6dsoxWithINT = "source:\n  type: i2c\n  i2c: {bus: 1, chip: lsm6dsox, address: 0x6b}\n  data_ready: {chip: gpiochip0, line: \"17\"}\n"
    static let mpu6050WithINT = "source:\n  type: i2c\n  i2c: {bus: 1, chip: mpu6050}\n  data_ready: {chip: gpiochip0, line: \"17\"}\n"

    @Test func autoHandsFreeFallAndTapToTheLSM6DSOXInTheSoftwareDetectorsUnits() throws {
        let c = try ConfigurationLoader.parse(yaml: Self.lsm6dsoxWithINT
            + "events: {enabled: true, free_fall_g: 0.35, free_fall_min_s: 0.3, tap_g: 3, double_tap_gap_s: 0.5}\n", fileName: "t.yaml")
        #expect(c.events.chipEngines == nil)                              // absent: every engine the chip has
        #expect(c.events.detectors.chipMotion && c.events.detectors.chipFreeFall && c.events.detectors.chipTap)
        #expect(c.source.chipFreeFall?.thresholdG == 0.35 && c.source.chipFreeFall?.duration == 0.3)
        #expect(c.source.chipTap?.thresholdG == 3 && c.source.chipTap?.doubleTapMaximumGap == 0.5)
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
        _ = try ConfigurationLoader.parse(yaml: Self.mpu6050WithINT + "events: {enabled: true, chip_motion: on, chip_engines: [motion]}\n",
                                          fileName: "t.yaml")
        // Without chip_engines, on means every engine the chip has: the MPU-6050's motion.
        let c = try ConfigurationLoader.parse(yaml: Self.mpu6050WithINT + "events: {enabled: true, chip_motion: on}\n", fileName: "t.yaml")
        #expect(c.events.detectors.chipMotion && !c.events.detectors.chipTap)
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
