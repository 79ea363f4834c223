import Testing
import Messaging
import MotionCore
@testable import Agent

/// `events.chip_motion`: who decides `motion` — the chip's own engine (MPU-6050, LSM6DSOX, BMI160) when the source can
/// (direct I2C, data-ready line, no FIFO), else the software detector; `on` without such a source
/// is refused naming the key; and the chip's events say `"source":"chip"` on the wire.
@Suite("Chip motion config")
struct ChipMotionConfigTests {
    typealias S = ConfigTestSupport

    static let mpu6050WithINT = """
    source:
      type: i2c
      i2c: {bus: 1, chip: mpu6050}
      data_ready: {chip: gpiochip0, line: "17"}

    """

    @Test func autoUsesTheChipForADirectI2CMPU6050WithAnINTLine() throws {
        let c = try ConfigurationLoader.parse(yaml: Self.mpu6050WithINT + "events: {enabled: true, motion_threshold_ms2: 1.0}\n", fileName: "t.yaml")
        #expect(c.events.chipMotion == .auto)
        #expect(c.events.detectors.chipMotion)
        #expect(c.source.chipMotionThresholdMS2 == 1.0)                  // the software threshold, in its own units
        #expect(c.source.chipMotionDuration == 0.1)
    }

    @Test func autoAlsoUsesTheWakeUpEngineOfADirectI2CLSM6DSOXWithAnINTLine() throws {
        let yaml = "source:\n  type: i2c\n  i2c: {bus: 1, chip: lsm6dsox, address: 0x6b}\n  data_ready: {chip: gpiochip0, line: \"17\"}\n"
            + "events: {enabled: true, motion_threshold_ms2: 1.0}\n"
        let c = try ConfigurationLoader.parse(yaml: yaml, fileName: "t.yaml")
        #expect(c.events.detectors.chipMotion)
        #expect(c.source.chipMotionThresholdMS2 == 1.0)
    }

    @Test func onWithAnLSM6DS3IsRefusedNamingTheKeyAndTheChipsThatHaveEngines() {
        let problems = S.problems("source:\n  type: i2c\n  i2c: {bus: 1, chip: lsm6ds3, address: 0x6b}\n  data_ready: {chip: gpiochip0, line: \"17\"}\n"
                                  + "events: {enabled: true, chip_motion: on}\n")
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.contains("events.chip_motion") == true && problems.first?.contains("lsm6ds3") == true, "\(problems)")
        // The message lists the three chips whose engines are supported, the BMI160 among them.
        #expect(problems.first?.contains("the bmi160's any-motion, low-g and tap engines") == true, "\(problems)")
    }

    @Test(arguments: [
        "source: {type: simulator}\n",
        "source:\n  type: i2c\n  i2c: {bus: 1, chip: lsm6ds3, address: 0x6b}\n  data_ready: {chip: gpiochip0, line: \"17\"}\n",
        "source:\n  type: i2c\n  i2c: {bus: 1, chip: lsm6dsox, address: 0x6b}\n",                   // no INT line
        "source:\n  type: i2c\n  i2c: {bus: 1, chip: bmi160, address: 0x69, fifo: true}\n  data_ready: {chip: gpiochip0, line: \"17\"}\n",
        "source:\n  type: i2c\n  i2c: {bus: 1, chip: mpu6050}\n",                                   // no INT line
        "source:\n  type: i2c\n  i2c: {bus: 1, chip: mpu6050, fifo: true}\n  data_ready: {chip: gpiochip0, line: \"17\"}\n",
    ])
    func autoFallsBackToTheSoftwareDetectorOtherwise(source: String) throws {
        let c = try ConfigurationLoader.parse(yaml: source + "events: {enabled: true}\n", fileName: "t.yaml")
        #expect(!c.events.detectors.chipMotion)
        #expect(c.source.chipMotionThresholdMS2 == nil)
    }

    @Test func offKeepsTheSoftwareDetectorEvenWhereTheChipCould() throws {
        let c = try ConfigurationLoader.parse(yaml: Self.mpu6050WithINT + "events: {enabled: true, chip_motion: off}\n", fileName: "t.yaml")
        #expect(!c.events.detectors.chipMotion && c.source.chipMotionThresholdMS2 == nil)
    }

    @Test func onWithoutSuchASourceIsRefusedNamingTheKeyAndTheReason() {
        let problems = S.problems("source: {type: simulator}\nevents: {enabled: true, chip_motion: on}\n")
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.contains("events.chip_motion") == true && problems.first?.contains("source.type: i2c") == true, "\(problems)")
    }

    @Test func anUnknownValueIsRefusedNamingTheKey() {
        let problems = S.problems("events: {chip_motion: sometimes}\n")
        #expect(problems.contains { $0.contains("events.chip_motion") && $0.contains("auto") }, "\(problems)")
    }

    /// One event's `events/motion` fields as JSON.
    static func json(_ e: MotionEvent) -> String {
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        MotionEventPayload.writeFields(e, thresholds: [], into: &w)
        w.endObject()
        return String(decoding: w.buffer, as: UTF8.self)
    }

    @Test func theChipsMotionEventSaysSourceChipAndTheSoftwaresSaysNothing() {
        let json = Self.json
        var chip = MotionEvent(type: .motion, time: 3, onset: 3)
        chip.fromChip = true
        #expect(json(chip) == #"{"type":"motion","t_s":3,"onset_s":3,"source":"chip"}"#)
        #expect(json(MotionEvent(type: .motion, time: 3, onset: 2.5)) == #"{"type":"motion","t_s":3,"onset_s":2.5}"#)
    }
}
