import Foundation
import Testing
import Messaging
import TestSupport

/// `deploy/mosquitto/edgemotion-local.conf`, the broker sample for a board: a real mosquitto
/// accepts it, and the agent publishes through it.
@Suite("Broker sample config", .ownThread)
struct BrokerSampleTests {
    static let path = ConfigTestSupport.packageRoot.path + "/deploy/mosquitto/edgemotion-local.conf"

    /// The sample's directives, minus its fixed listener and persistence (the test broker has its
    /// own free port and no state on disk).
    static func sampleDirectives() throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
            .filter { !$0.hasPrefix("listener ") && !$0.hasPrefix("persistence") }
    }

    @Test func theSampleTurnsNaglesAlgorithmOffAndKeepsQueuesBounded() throws {
        let lines = try Self.sampleDirectives()
        #expect(lines.contains("set_tcp_nodelay true"), "without it, small messages wait up to 40 ms for delayed ACKs")
        #expect(lines.contains { $0.hasPrefix("max_queued_messages ") })
        let raw = try String(contentsOfFile: Self.path, encoding: .utf8)
        #expect(raw.contains("listener 1883 127.0.0.1"), "the agent's default broker is 127.0.0.1:1883")
    }

    @Test func mosquittoAcceptsTheSampleAndTheAgentPublishesThroughIt() throws {
        let broker = try MosquittoBroker.start(extraConfig: try Self.sampleDirectives().joined(separator: "\n"))
        defer { broker.stop() }
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/sample/sensor/accelerometer"])
        let config = try AgentProcess.writeConfig("""
        device: { id: sample }
        source: { type: simulator, rate: 100, simulator: { scenario: stationary, real_time: true } }
        streams: { accelerometer: { rate: 100, publish_rate: 10 } }
        state_directory: \(NSTemporaryDirectory())edgemotion-brokersample-\(UUID().uuidString)
        """)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url, "--duration", "3"])
        let batches = sub.waitFor(count: 5, topic: "edgemotion/sample/sensor/accelerometer", timeout: .seconds(15))
        _ = agent.waitForExit(timeout: 10)
        #expect(batches.count >= 5, "agent log:\n\(agent.log)\nbroker log:\n\(broker.log())")
    }
}
