import Testing
import Sensors
@testable import Agent

/// What the main loop learns of the source from the pipeline (`SourceHealthReport`): the status
/// for `health` (changed once per report) and every failure and recovery for `events/status`,
/// oldest first, at most 16 kept.
@Suite("Source health report")
struct SourceHealthReportTests {
    let unplugged = SensorError(.io, subject: "test device", detail: "device disappeared (unbound)")

    @Test func aFailureThenARecoveryAreEachReportedOnce() {
        let r = SourceHealthReport()
        let first = r.takeStatus()
        #expect(!first.failing && first.error == nil && !first.changed, "healthy and unchanged at first")
        r.pipeline(sourceStatusChanged: unplugged)
        let failing = r.takeStatus()
        #expect(failing.failing && failing.changed)
        #expect(failing.error?.contains("device disappeared") == true)
        #expect(!r.takeStatus().changed, "a change is reported once")
        r.pipeline(sourceStatusChanged: nil)
        let back = r.takeStatus()
        #expect(!back.failing && back.error == nil && back.changed)
        let t = r.takeTransitions()
        #expect(t.count == 2)
        #expect(t.first?.error?.contains("device disappeared") == true)
        #expect(t.last?.error == nil, "the recovery")
        #expect(r.takeTransitions().isEmpty, "taken once")
    }

    @Test func aFlappingSourceKeepsOnlyTheNewestSixteenTransitions() {
        let r = SourceHealthReport()
        for k in 0..<40 { r.pipeline(sourceStatusChanged: k.isMultiple(of: 2) ? unplugged : nil) }
        let t = r.takeTransitions()
        #expect(t.count == 16)
        #expect(t.last?.error == nil, "the 40th report, a recovery, is the newest kept")
    }
}
