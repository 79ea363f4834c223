import Foundation
import Testing
import TestSupport
@testable import Agent

/// Issue 14 items 9 and 16: configuration files a careless or hostile user can give the agent —
/// deep nesting, a path that is not a regular file, values only the start-up used to refuse —
/// through `check-config`, `run` and a SIGHUP reload alike.
@Suite("Hostile input: configuration files", .ownThread)
struct HostileConfigTests {
    @Test func nestingDeeperThan64LevelsIsRefusedAtItsPosition() {
        let flow = "streams: " + String(repeating: "[", count: 200_000)
        let problems = ConfigTestSupport.problems(flow)
        // streams is level 1, the 64th '[' opens level 65 at column 10 + 63.
        #expect(problems == ["t.yaml:1:73: nesting deeper than 64 levels of mappings or sequences; a configuration needs at most a few"],
                "\(problems.map { $0.prefix(120) })")
        // The top-level mapping is level 1; the one opening on line 65 would be level 65.
        var block = ""
        for level in 0..<70 { block += String(repeating: " ", count: level) + "k\(level):\n" }
        let blockProblems = ConfigTestSupport.problems(block + String(repeating: " ", count: 70) + "x: 1\n")
        #expect(blockProblems.first?.hasPrefix("t.yaml:65:65:") == true && blockProblems.first?.contains("deeper than 64") == true,
                "\(blockProblems.map { $0.prefix(120) })")
        // 64 levels are fine as YAML (the keys are then unknown, which is another matter).
        let deep64 = "x: " + String(repeating: "[", count: 63) + String(repeating: "]", count: 63) + "\n"
        #expect(!ConfigTestSupport.problems(deep64).contains { $0.contains("deeper than") })
    }

    @Test func aHugeTopicPrefixOrPasswordIsRefusedByTheSameCheckAsRun() throws {
        let huge = String(repeating: "p", count: 1_000_000)
        for (yaml, key, message) in [
            ("mqtt: { broker: mqtt://localhost, topic_prefix: \(huge) }\n", "mqtt.topic_prefix", "longer than 65535"),
            ("mqtt: { broker: mqtt://localhost, username: u, password: \(huge) }\n", "mqtt", "password is longer than 65535"),
            ("mqtt: { broker: mqtt://localhost, username: \(huge) }\n", "mqtt", "username is longer than 65535"),
        ] {
            let path = try ConfigTestSupport.temporaryFile(yaml)
            defer { ConfigTestSupport.removeTemporaryFile(path) }
            do {
                _ = try ConfigurationCheck.load(path: path)
                Issue.record("\(key) of 1 MB accepted")
            } catch {
                #expect(error.diagnostics.contains { $0.keyPath == key && $0.message.contains(message) }, "\(error.description.prefix(300))")
            }
        }
    }
}

@Suite("Hostile input: configuration files end to end", .serialized, .ownThread)
struct HostileConfigEndToEndTests {
    func edgemotion(_ arguments: [String], timeout: Double = 20) throws -> (Int32?, String) {
        let p = try AgentProcess(arguments)
        return (p.waitForExit(timeout: timeout), p.log)
    }

    @Test func aFIFODirectoryOrDeviceAsTheConfigIsRefusedWithoutBlocking() throws {
        let dir = try Reliability.tempDirectory("fifo-config")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/config.yaml"
        #expect(mkfifo(fifo, 0o600) == 0)
        for path in [fifo, dir, "/dev/zero"] {
            let (status, out) = try edgemotion(["check-config", path])
            #expect(status == 2, "check-config \(path): \(out)")
            #expect(out.contains("not a regular file"), "\(out)")
            let (runStatus, runOut) = try edgemotion(["run", "--config", path, "--broker", "mqtt://127.0.0.1:1"])
            #expect(runStatus == 2 && runOut.contains("not a regular file"), "run \(path): \(runOut)")
        }
        // A symbolic link to a regular file is fine.
        let real = dir + "/real.yaml"
        try "source: { rate: 100 }\n".write(toFile: real, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.yaml", withDestinationPath: real)
        #expect(try edgemotion(["check-config", dir + "/link.yaml"]).0 == 0)
    }

    @Test func checkConfigAndRunRefuseAHugeTopicPrefixAlike() throws {
        let path = try ConfigTestSupport.temporaryFile("mqtt: { topic_prefix: \(String(repeating: "t", count: 1_000_000)) }\n")
        defer { ConfigTestSupport.removeTemporaryFile(path) }
        let (status, out) = try edgemotion(["check-config", path])
        #expect(status == 1 && out.contains("mqtt.topic_prefix") && out.contains("longer than 65535"), "\(out.prefix(400))")
        let (runStatus, runOut) = try edgemotion(["run", "--config", path, "--broker", "mqtt://127.0.0.1:1"])
        #expect(runStatus == 2 && runOut.contains("mqtt.topic_prefix"), "\(runOut.prefix(400))")
    }

    @Test func aRejectedReloadShowsInHealthUntilTheNextGoodOneAndAFIFONeverBlocksIt() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/rr/#"])
        let dir = try Reliability.tempDirectory("reload-health")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let good = Reliability.config(id: "rr", stateDirectory: dir)
        let config = dir + "/agent.yaml"
        try good.write(toFile: config, atomically: true, encoding: .utf8)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        defer { agent.signal(SIGKILL) }
        #expect(sub.waitFor(count: 2, topic: "edgemotion/rr/motion", timeout: .seconds(15)).count >= 2, "log:\n\(agent.log)")
        func lastHealth() -> [String: Any]? {
            sub.messages(on: "edgemotion/rr/health").last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }
        }
        func waitHealth(_ condition: ([String: Any]) -> Bool) -> [String: Any]? {
            let deadline = Date().addingTimeInterval(8)
            while Date() < deadline {
                if let h = lastHealth(), condition(h) { return h }
                usleep(100_000)
            }
            return lastHealth()
        }
        // 1. The config replaced by a FIFO: refused at once, the main loop keeps going.
        try FileManager.default.removeItem(atPath: config)
        #expect(mkfifo(config, 0o600) == 0)
        agent.signal(SIGHUP)
        let rejected = waitHealth { $0["reload_rejected"] != nil }
        #expect((rejected?["reload_rejected"] as? String)?.contains("not a regular file") == true, "health: \(String(describing: rejected))\nlog:\n\(agent.log)")
        let stats = sub.messages(on: "edgemotion/rr/stats").count
        usleep(2_500_000)
        #expect(sub.messages(on: "edgemotion/rr/stats").count >= stats + 1, "stats continue: the main loop is not blocked")
        // 2. An invalid file: still rejected, still shown (now with its own problem).
        try FileManager.default.removeItem(atPath: config)
        try (good + "bogus_key: 1\n").write(toFile: config, atomically: true, encoding: .utf8)
        agent.signal(SIGHUP)
        let invalid = waitHealth { ($0["reload_rejected"] as? String)?.contains("bogus_key") == true }
        #expect((invalid?["reload_rejected"] as? String)?.contains("bogus_key") == true, "\(String(describing: invalid))")
        // 3. A good reload clears it.
        try good.replacingOccurrences(of: "stats_interval_s: 1", with: "stats_interval_s: 1.5").write(toFile: config, atomically: true, encoding: .utf8)
        agent.signal(SIGHUP)
        let cleared = waitHealth { $0["reload_rejected"] == nil }
        #expect(cleared != nil && cleared?["reload_rejected"] == nil, "\(String(describing: cleared))\nlog:\n\(agent.log)")
        #expect(agent.isRunning)
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0)
    }
}
