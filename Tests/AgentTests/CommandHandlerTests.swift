import Messaging
import Testing
@testable import Agent
import TestSupport

/// The agent's two reporting/command parts alone: `CommandHandler` performs what the network thread
/// queued only while started, in arrival order, bounded; `HealthReporter` reports only while started
/// and publishes the last report at its stop. (Their place in the agent's order is checked by
/// `AgentLifecycleTests`.)
@Suite("Command handler and health reporter parts", .ownThread)
struct CommandHandlerTests {
    static func message(_ name: String) -> MQTTMessage {
        MQTTMessage(topic: "edgemotion/d/cmd/" + name, payload: Array("{}".utf8), qos: 1, retain: false)
    }

    @Test func commandsQueuedBeforeTheStartWaitForItAndRunInArrivalOrder() throws {
        let h = CommandHandler()
        var performed: [String] = []
        h.offer(Self.message("stream"))
        h.offer(Self.message("mount"))
        h.handlePending { performed.append($0.topic) }
        #expect(performed.isEmpty, "not started yet")
        try h.start()
        h.handlePending { performed.append($0.topic) }
        #expect(performed == ["edgemotion/d/cmd/stream", "edgemotion/d/cmd/mount"])
        h.handlePending { performed.append($0.topic) }
        #expect(performed.count == 2, "each command runs once")
    }

    @Test func theStopDropsWhatWaitsAndNothingRunsAfterIt() throws {
        let h = CommandHandler()
        var performed: [String] = []
        try h.start()
        h.offer(Self.message("events"))
        h.stop(within: StopBudget(seconds: 1))
        h.offer(Self.message("calibrate"))
        h.handlePending { performed.append($0.topic) }
        #expect(performed.isEmpty)
    }

    @Test func atMostSixtyFourCommandsWaitTheRestAreDropped() throws {
        let h = CommandHandler()
        for i in 0..<70 { h.offer(Self.message("c\(i)")) }
        try h.start()
        var performed: [String] = []
        h.handlePending { performed.append($0.topic) }
        #expect(performed.count == 64)
        #expect(performed.first == "edgemotion/d/cmd/c0")
        #expect(performed.last == "edgemotion/d/cmd/c63", "the newest are dropped, not the oldest")
    }

    @Test func theHealthReporterReportsOnlyWhileStartedAndOnceMoreAtItsStop() throws {
        let r = HealthReporter()
        var finals = 0
        r.publishFinal = { finals += 1 }
        #expect(!r.isReporting)
        try r.start()
        #expect(r.isReporting)
        #expect(finals == 0)
        r.stop(within: StopBudget(seconds: 1))
        #expect(!r.isReporting)
        #expect(finals == 1)
    }
}
