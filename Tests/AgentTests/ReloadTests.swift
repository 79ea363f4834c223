import Foundation
import Testing
import Messaging
import TestSupport

@Suite("SIGHUP reload", .serialized, .ownThread)
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

        // 3. Rate only: new schedules for the running pipeline (the source stays open); seq continues.
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

    /// The accelerometer batches' `first_sample`, `n` and `interval_s`, in arrival order.
    static func batches(_ sub: TestSubscriber, _ topic: String) -> [(first: Int, n: Int, interval: Double)] {
        sub.messages(on: topic).compactMap {
            guard let j = try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any],
                  let f = j["first_sample"] as? Int, let n = j["n"] as? Int, let i = j["interval_s"] as? Double else { return nil }
            return (f, n, i)
        }
    }

    static func samplesAcquired(_ sub: TestSubscriber, _ topic: String) -> [Int] {
        sub.messages(on: topic).compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any])?["samples_acquired"] as? Int
        }
    }

    /// docs/topics.md: "a gap in first_sample means samples were lost". A reload that changes only
    /// rates must not reopen the source (a replay or the simulator would start over at sample 0);
    /// one that changes the source reopens it, and the numbering still continues.
    @Test func aRateOnlyReloadKeepsTheSourceAndASourceChangeKeepsTheNumbering() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/#"])
        let dir = try Reliability.tempDirectory("reload-rates")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let base = Reliability.config(id: "rates", stateDirectory: dir)
        let config = try AgentProcess.writeConfig(base)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        let topic = "edgemotion/rates/sensor/accelerometer", stats = "edgemotion/rates/stats"
        _ = sub.waitFor(count: 15, topic: topic, timeout: .seconds(15))

        // Rates only: 100 Hz / 10 msg/s → 50 Hz / 5 msg/s.
        try base.replacingOccurrences(of: "accelerometer: { rate: 100, publish_rate: 10, qos: 1 }",
                                      with: "accelerometer: { rate: 50, publish_rate: 5, qos: 1 }")
            .write(toFile: config, atomically: true, encoding: .utf8)
        let before = Self.batches(sub, topic).count
        agent.signal(SIGHUP)
        _ = sub.waitFor(count: before + 12, topic: topic, timeout: .seconds(15))
        #expect(agent.log.contains("stream rates (source kept)"), "log:\n\(agent.log)")
        #expect(!agent.log.contains("pipeline (restarted)"), "log:\n\(agent.log)")
        var all = Self.batches(sub, topic)
        #expect(all.last?.interval == 0.02, "50 Hz after the reload")
        // Every batch starts where the previous one ended: sample numbers of a 200 Hz source,
        // every 2nd (100 Hz) then every 4th (50 Hz). At the switch (between two drains of the
        // ring) the new schedule starts with a sample the old one had not reached yet.
        for k in 1..<all.count {
            let (p, c) = (all[k - 1], all[k])
            let step = Int((p.interval * 200).rounded())
            let end = p.first + (p.n - 1) * step
            if p.interval == c.interval {
                #expect(c.first == end + step, "batch \(k): first_sample \(c.first) after \(p.first)+\(p.n)×\(step)")
            } else {
                #expect(c.first > end && c.first <= end + step, "switch at batch \(k): first_sample \(c.first) after \(p.first)+\(p.n)×\(step)")
            }
        }
        let acquired = Self.samplesAcquired(sub, stats)
        #expect(acquired.count >= 3 && acquired == acquired.sorted(), "samples_acquired never goes back: \(acquired)")

        // The source changes (another seed): it is reopened, and first_sample continues.
        sub.clear()
        try base.replacingOccurrences(of: "seed: 3", with: "seed: 4").write(toFile: config, atomically: true, encoding: .utf8)
        let lastBefore = try #require(all.last)
        agent.signal(SIGHUP)
        _ = sub.waitFor(count: 10, topic: topic, timeout: .seconds(15))
        #expect(agent.log.contains("pipeline (restarted)"), "log:\n\(agent.log)")
        all = Self.batches(sub, topic).filter { $0.interval == 0.01 }
        let firstAfter = try #require(all.first, "no batches after the source change: \(agent.log)")
        #expect(firstAfter.first > lastBefore.first, "first_sample \(firstAfter.first) continues after \(lastBefore.first)")
        #expect(firstAfter.first - lastBefore.first < 200, "… without a jump: \(firstAfter.first) after \(lastBefore.first)")
        let acquiredAfter = Self.samplesAcquired(sub, stats)
        #expect(acquiredAfter.allSatisfy { $0 >= acquired.last ?? 0 }, "samples_acquired \(acquiredAfter) after \(acquired)")
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0)
    }

    /// `auxiliary:` devices are opened when a reload is checked: one that is not there rejects the
    /// reload (naming `auxiliary`) and the IMU streams keep running on the old configuration. (With
    /// real devices, the VM check `agent-iio-auxiliary` reloads their rates: `seq` and the altitude
    /// reference continue.)
    @Test func aReloadNamingAMissingAuxiliaryDeviceIsRejectedAndNothingStops() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/#"])
        let dir = try Reliability.tempDirectory("reload-aux")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let base = Reliability.config(id: "aux", stateDirectory: dir)
        let config = try AgentProcess.writeConfig(base)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        let topic = "edgemotion/aux/sensor/accelerometer"
        _ = sub.waitFor(count: 10, topic: topic, timeout: .seconds(15))
        try base.appending("auxiliary: { devices: [no-such-barometer], rate: 2, publish_rate: 1 }\n")
            .write(toFile: config, atomically: true, encoding: .utf8)
        agent.signal(SIGHUP)
        for _ in 0..<50 where !agent.log.contains("reload rejected") { usleep(100_000) }
        #expect(agent.log.contains("reload rejected") && agent.log.contains("auxiliary:"), "log:\n\(agent.log)")
        #expect(!agent.log.contains("pipeline (restarted)"))
        let before = sub.messages(on: topic).count
        _ = sub.waitFor(count: before + 5, topic: topic, timeout: .seconds(10))
        #expect(sub.messages(on: topic).count >= before + 5, "still publishing")
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0)
    }
}
