import Testing
import Messaging
import MotionCore
@testable import Agent

/// `orientation` in `events.chip_engines`: the LSM6DSOX's 6D engine decides `orientation` when
/// it is reported (`events.orientation: true`) and the chip is mounted as the board
/// (`source.mount.accel_gyro: identity`); listed with another mount it is refused naming the key;
/// on a chip without it (`chip_motion: on`) refused naming chip and engine; its events say
/// `"source":"chip"`.
@Suite("Chip orientation config")
struct ChipOrientationConfigTests {
    typealias S = ConfigTestSupport

    static func lsm6dsox(mount: String = "identity") -> String {
        "source:\n  type: i2c\n  i2c: {bus: 1, chip: lsm6dsox, address: 0x6b}\n  data_ready: {chip: gpiochip0, line: \"17\"}\n"
            + "  mount: {accel_gyro: \(mount)}\n"
    }
    static let mpu6050WithINT = "source:\n  type: i2c\n  i2c: {bus: 1, chip: mpu6050}\n  data_ready: {chip: gpiochip0, line: \"17\"}\n"

    @Test func listedWithAnIdentityMountTheChipDecidesOrientationAtTheConfiguredAngle() throws {
        let c = try ConfigurationLoader.parse(yaml: Self.lsm6dsox()
            + "events: {enabled: true, orientation: true, orientation_deg: 70, chip_engines: [orientation]}\n", fileName: "t.yaml")
        #expect(c.events.detectors.chipOrientation && !c.events.detectors.chipTap && !c.events.detectors.chipMotion)
        #expect(c.source.chipOrientation?.thresholdDegrees == 70)
    }

    @Test func autoGivesItOnlyWhenOrientationIsReportedAndTheMountIsTheIdentity() throws {
        let on = try ConfigurationLoader.parse(yaml: Self.lsm6dsox() + "events: {enabled: true, orientation: true}\n", fileName: "t.yaml")
        #expect(on.events.detectors.chipOrientation && on.source.chipOrientation?.thresholdDegrees == 60)
        let notReported = try ConfigurationLoader.parse(yaml: Self.lsm6dsox() + "events: {enabled: true}\n", fileName: "t.yaml")
        #expect(!notReported.events.detectors.chipOrientation && notReported.source.chipOrientation == nil)
        // No mount given: a learned one may rotate the board at run time, so the faces stay software.
        let noMount = try ConfigurationLoader.parse(yaml: "source:\n  type: i2c\n  i2c: {bus: 1, chip: lsm6dsox, address: 0x6b}\n  data_ready: {chip: gpiochip0, line: \"17\"}\n"
            + "events: {enabled: true, orientation: true}\n", fileName: "t.yaml")
        #expect(!noMount.events.detectors.chipOrientation && noMount.source.chipOrientation == nil && noMount.events.detectors.chipMotion)
    }

    @Test func listedUnderARotatedMountIsRefusedNamingTheKeys() {
        let problems = S.problems(Self.lsm6dsox(mount: "{x: -y, y: x, z: z}")
            + "events: {enabled: true, orientation: true, chip_engines: [tap, orientation]}\n")
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.contains("events.chip_engines") == true && problems.first?.contains("source.mount.accel_gyro") == true, "\(problems)")
    }

    @Test func onWithAnMPU6050IsRefusedNamingTheChipAndTheEngine() {
        let problems = S.problems(Self.mpu6050WithINT + "  mount: {accel_gyro: identity}\n"
            + "events: {enabled: true, orientation: true, chip_motion: on, chip_engines: [orientation]}\n")
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.contains("events.chip_engines") == true && problems.first?.contains("mpu6050's orientation engine") == true, "\(problems)")
    }

    @Test func theChipsOrientationEventSaysSourceChip() {
        var e = MotionEvent(type: .orientation, time: 3.5, onset: 3)
        e.face = .portrait
        e.previousFace = .faceUp
        e.fromChip = true
        let json = ChipMotionConfigTests.json(e)
        #expect(json.contains(#""type":"orientation""#) && json.contains(#""face":"portrait""#)
                && json.contains(#""previous":"face_up""#) && json.hasSuffix(#""source":"chip"}"#), "\(json)")
    }
}
