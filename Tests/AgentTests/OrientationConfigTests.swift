import Foundation
import Testing
import MotionCore
@testable import Agent

/// `events.orientation`, `orientation_deg`, `orientation_dwell_s` and the `orientation` payload.
@Suite("Orientation config and payload")
struct OrientationConfigTests {
    typealias S = ConfigTestSupport

    @Test func offByDefaultAndReadAsWritten() throws {
        let d = try ConfigurationLoader.parse(yaml: "events: {enabled: true}\n", fileName: "t.yaml").events.detectors
        #expect(!d.enabled.contains(.orientation))
        #expect(d.orientation.threshold == 60 && d.orientation.dwell == 0.5)
        let yaml = "events:\n  orientation: true\n  orientation_deg: 80\n  orientation_dwell_s: 1.5\n"
        let c = try ConfigurationLoader.parse(yaml: yaml, fileName: "t.yaml").events.detectors
        #expect(c.enabled.contains(.orientation))
        #expect(c.orientation.threshold == 80 && c.orientation.dwell == 1.5)
    }

    /// Only the chip's SIXD_THS angles (50, 60, 70, 80) are accepted, so the software detector
    /// and the chip engine can be the same.
    @Test func anAngleTheChipLacksIsRefusedAtItsLine() {
        let problems = S.problems("events:\n  orientation: true\n  orientation_deg: 65\n  orientation_dwell_s: -1\n")
        #expect(problems.contains { $0.hasPrefix("t.yaml:3:") && $0.contains("events.orientation_deg") && $0.contains("80") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("t.yaml:4:") && $0.contains("events.orientation_dwell_s") }, "\(problems)")
    }

    @Test func thePayloadNamesTheFaceAndThePreviousFace() {
        var e = MotionEvent(type: .orientation, time: 7.5, onset: 7)
        e.face = .portrait
        e.previousFace = .faceUp
        #expect(ChipMotionConfigTests.json(e) == #"{"type":"orientation","t_s":7.5,"onset_s":7,"face":"portrait","previous":"face_up"}"#)
        e.face = .landscapeRight
        e.previousFace = .unknown
        e.fromChip = true
        #expect(ChipMotionConfigTests.json(e)
            == #"{"type":"orientation","t_s":7.5,"onset_s":7,"face":"landscape_right","previous":"unknown","source":"chip"}"#)
    }
}
