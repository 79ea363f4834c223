import Foundation
import Testing
@testable import Agent
import Messaging
import TestSupport

/// The agent against a broker that refuses it (wrong password): the start-up names the refusal
/// instead of "not reachable", and each failed attempt is logged once.
@Suite(.serialized, .ownThread) struct BrokerRefusalAgentTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_passwd")))
    func aWrongPasswordIsNamedOnceAttemptAndStartUpDoesNotCallTheBrokerUnreachable() throws {
        let dir = try Reliability.tempDirectory("refused")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let passwd = dir + "/passwd"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_passwd")
        p.arguments = ["-c", "-b", passwd, "edge", "right-password"]
        try p.run()
        p.waitUntilExit()
        let broker = try MosquittoBroker.start(extraConfig: "allow_anonymous false\npassword_file \(passwd)")
        let config = try AgentProcess.writeConfig(Reliability.config(id: "refused", stateDirectory: dir + "/state",
            extra: "mqtt: { username: edge, password: wrong-password }"))
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        usleep(7_000_000)
        agent.signal()
        _ = agent.waitForExit(timeout: 10)
        let log = agent.log
        #expect(log.contains("bad user name or password"), "\(log)")
        #expect(!log.contains("anonymous access disabled"))
        #expect(!log.contains("broker not reachable yet"))
        #expect(log.contains("the broker refuses the connection"))
        // One line per failed attempt: attempt numbers never repeat among the failure lines.
        let failures = log.split(separator: "\n").filter { $0.contains("CONNACK 5") && !$0.contains("health") }
        let attempts = failures.compactMap { line -> Substring? in
            line.split(separator: " ").first { $0.hasPrefix("attempt=") }
        }
        #expect(failures.count >= 2, "\(log)")
        #expect(attempts.count == failures.count, "every failure line is the client's one line: \(failures)")
        #expect(Set(attempts).count == attempts.count, "an attempt was logged twice: \(failures)")
    }
}

/// A broker whose ACL denies part of the agent's topics. Over MQTT 5 each refused topic is
/// counted in `stats` (`mqtt_refused`), named once in the log and in `health.last_error`,
/// whoever published it (the outbox, or `meta` published directly); over 3.1.1 the stop summary
/// says that QoS 0 delivery is unknowable instead of implying it was confirmed.
@Suite(.serialized, .ownThread) struct BrokerACLRefusalTests {
    static func aclBroker(_ dir: String) throws -> MosquittoBroker {
        let acl = dir + "/acl"
        try """
        topic readwrite edgemotion/acl/status
        topic readwrite edgemotion/acl/stats
        topic readwrite edgemotion/acl/health
        topic readwrite edgemotion/acl/sensor/#
        topic readwrite edgemotion/acl/query/#
        topic readwrite edgemotion/acl/cmd/#

        """.write(toFile: acl, atomically: true, encoding: .utf8)
        return try MosquittoBroker.start(extraConfig: "acl_file \(acl)")
    }

    func runAgent(protocolVersion: String, seconds: Double) throws -> (log: String, stats: [String: Any]?, health: [String: Any]?) {
        let dir = try Reliability.tempDirectory("acl")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try Self.aclBroker(dir)
        let sub = try SessionSubscriber(url: broker.url, pattern: "edgemotion/acl/+")
        let config = try AgentProcess.writeConfig(Reliability.config(id: "acl", stateDirectory: dir + "/state",
            extra: "mqtt: { topic_prefix: edgemotion/acl, protocol: \"\(protocolVersion)\" }\nactivity: { enabled: false }"))
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        usleep(UInt32(seconds * 1_000_000))
        agent.signal()
        _ = agent.waitForExit(timeout: 10)
        return (agent.log, sub.json(on: "edgemotion/acl/stats").last, sub.json(on: "edgemotion/acl/health").last)
    }

    @Test func overMQTT5EveryRefusedTopicIsCountedNamedOnceAndInHealth() throws {
        let (log, stats, health) = try runAgent(protocolVersion: "5", seconds: 5)
        let refused = try #require(stats?["mqtt_refused"] as? [[String: Any]], "stats: \(String(describing: stats))")
        let topics = Set(refused.compactMap { $0["topic"] as? String })
        #expect(topics.contains("edgemotion/acl/meta"), "refused: \(refused)")
        #expect(refused.allSatisfy { ($0["reason"] as? Int) == 135 && ($0["refused"] as? Int ?? 0) >= 1 }, "\(refused)")
        #expect(!topics.contains("edgemotion/acl/stats") && !topics.contains("edgemotion/acl/status"))
        let lines = log.split(separator: "\n").filter { $0.contains("the broker refuses publishes on this topic") }
        let named = lines.compactMap { $0.split(separator: " ").first { $0.hasPrefix("topic=") } }
        #expect(named.contains("topic=edgemotion/acl/meta"), "\(lines)")
        #expect(Set(named).count == named.count, "a topic was named twice: \(lines)")
        #expect(log.split(separator: "\n").filter { $0.contains("publish refused by the broker") }.isEmpty)
        let lastError = health?["last_error"] as? String ?? ""
        #expect(lastError.contains("refused publishes on edgemotion/acl/"), "health: \(String(describing: health))")
        #expect(lastError.contains("135"))
        #expect(log.contains("QoS 0 delivery is unknowable"))
    }

    @Test func over311TheSummarySaysDeliveryIsNotProvenByAcknowledgements() throws {
        let (log, _, _) = try runAgent(protocolVersion: "3.1.1", seconds: 3)
        let summary = try #require(log.split(separator: "\n").first { $0.contains("event=stopped") })
        #expect(summary.contains("QoS 0 delivery is unknowable"), "\(summary)")
        #expect(summary.contains("acknowledged is not proof of delivery"), "\(summary)")
    }
}
