import Foundation
import Testing
import Messaging
import TestSupport

@Suite("SIGHUP reload", .serialized)
struct ReloadTests {
    @Test func aValidNewConfigurationAppliesWithoutRestartAndAnInvalidOneIsRejected() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/#", "moved/#"])
        let dir = try Reliability.tempDirectory("reload")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try AgentProcess.writeConfig(Reliability.config(id: "reload", stateDirectory: dir))
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        usleep(2_500_000)
        #expect(!sub.messages(on: "edgemotion/reload/sensor/accelerometer").isEmpty, "agent log:\n\(agent.log)")

        // 1. Invalid: rejected with the problem logged; the agent keeps publishing as before.
        try "streams: { accelerometer: { rate: -5 } }\nbogus_key: 1\n".write(toFile: config, atomically: true, encoding: .utf8)
        agent.signal(SIGHUP)
        usleep(1_500_000)
        #expect(agent.isRunning)
        #expect(agent.log.contains("reload rejected"), "log:\n\(agent.log)")
        #expect(agent.log.contains("bogus_key"))
        let before = sub.messages(on: "edgemotion/reload/sensor/accelerometer").count
        usleep(1_000_000)
        #expect(sub.messages(on: "edgemotion/reload/sensor/accelerometer").count >= before + 5, "still publishing")

        // 2. Valid: new topic prefix and a slower accelerometer stream (5 messages/s), same process.
        sub.clear()
        try Reliability.config(id: "reload", stateDirectory: dir, extra: "")
            .replacingOccurrences(of: "accelerometer: { rate: 100, publish_rate: 10, qos: 1 }",
                                  with: "accelerometer: { rate: 50, publish_rate: 5, qos: 1 }")
            .appending("mqtt: { topic_prefix: \"moved/{device_id}\" }\n")
            .write(toFile: config, atomically: true, encoding: .utf8)
        let pid = agent.pid
        agent.signal(SIGHUP)
        usleep(4_000_000)
        #expect(agent.isRunning && agent.pid == pid)
        #expect(agent.log.contains("configuration reloaded"), "log:\n\(agent.log)")
        let moved = sub.messages(on: "moved/reload/sensor/accelerometer")
        let batches = moved.compactMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }
        #expect(batches.count >= 12 && batches.count <= 22, "about 5 messages/s for ~3.5 s, got \(batches.count)")
        #expect(batches.last?["interval_s"] as? Double == 0.02, "50 Hz after the reload")
        // seq continues across the pipeline restart (subscribers keep detecting loss).
        #expect((batches.first?["seq"] as? Int ?? 0) > 0)
        #expect(sub.messages(on: "moved/reload/status").last?.payloadString == "online")

        // 3. Rate only: the pipeline restarts (a short gap in samples) but seq continues.
        try Reliability.config(id: "reload", stateDirectory: dir, extra: "")
            .appending("mqtt: { topic_prefix: \"moved/{device_id}\" }\n")
            .write(toFile: config, atomically: true, encoding: .utf8)
        agent.signal(SIGHUP)
        usleep(2_000_000)
        #expect(agent.log.components(separatedBy: "configuration reloaded").count - 1 == 2, "log:\n\(agent.log)")
        let after = sub.messages(on: "moved/reload/sensor/accelerometer").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }
        #expect(after.last?["interval_s"] as? Double == 0.01, "100 Hz again")
        let seqs = after.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array((seqs.first ?? 0)..<((seqs.first ?? 0) + seqs.count)), "no gap in seq across the rate change")
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0)
    }

    @Test func aReloadToAnotherBrokerMovesTheConnection() throws {
        let first = try MosquittoBroker.start()
        let second = try MosquittoBroker.start()
        let sub1 = try TestSubscriber(url: first.url, patterns: ["edgemotion/#"])
        let sub2 = try TestSubscriber(url: second.url, patterns: ["edgemotion/#"])
        let dir = try Reliability.tempDirectory("reload-broker")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try AgentProcess.writeConfig(Reliability.config(id: "mover", stateDirectory: dir, extra: "mqtt: { broker: \"\(first.url)\" }"))
        let agent = try AgentProcess(["run", "--config", config])
        usleep(2_000_000)
        #expect(!sub1.messages(on: "edgemotion/mover/sensor/accelerometer").isEmpty, "log:\n\(agent.log)")
        try Reliability.config(id: "mover", stateDirectory: dir, extra: "mqtt: { broker: \"\(second.url)\" }")
            .write(toFile: config, atomically: true, encoding: .utf8)
        agent.signal(SIGHUP)
        usleep(3_000_000)
        #expect(sub2.messages(on: "edgemotion/mover/sensor/accelerometer").count >= 10, "log:\n\(agent.log)")
        #expect(sub1.messages(on: "edgemotion/mover/status").last?.payloadString == "offline")
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0)
    }
}
