import Foundation
import Testing
import TestSupport

/// `edgemotion events set-level` (the real binary) against a running agent (a child process)
/// and a private mosquitto: the board rests at the simulator's pose, Core Motion roll 10°,
/// pitch −5°, which is acos(cos 10° · cos 5°) = 11.2° from level, so a `level` threshold at 5°
/// turns on; after set-level that pose is the zero, tilt ≈ 0° and the threshold turns off.
@Suite("edgemotion events set-level", .serialized, .ownThread)
struct EventsSetLevelCommandTests {
    func edgemotion(_ arguments: [String]) throws -> (status: Int32?, output: String) {
        let p = try AgentProcess(arguments)
        let status = p.waitForExit(timeout: 30)
        return (status, p.log)
    }

    static func config(_ id: String, dir: String, control: Bool = true, events: Bool = true) throws -> String {
        try AgentProcess.writeConfig("""
        device: { id: \(id) }
        mqtt: { topic_prefix: edgemotion/\(id) }
        source: { type: simulator, rate: 200, simulator: { scenario: stationary, seed: 3, real_time: true } }
        streams: { accelerometer: { enabled: false }, gyroscope: { enabled: false }, magnetometer: { enabled: false }, motion: { enabled: false } }
        activity: { enabled: false }
        control: { enabled: \(control) }
        state_directory: \(dir)
        events:
          enabled: \(events)
          thresholds:
            level: {above_deg: 5, below_deg: 2, dwell_s: 0.5, on: tilted, off: level}
        """)
    }

    @Test func setLevelMakesTheRunningAgentsPoseTheZeroAndPrintsItsReply() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/lvl/#"])
        let dir = try Reliability.tempDirectory("events-set-level")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try Self.config("lvl", dir: dir)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        defer { agent.signal(SIGTERM); _ = agent.waitForExit(timeout: 10) }
        let tilted = sub.waitFor(count: 1, topic: "edgemotion/lvl/events/motion", timeout: .seconds(10)).first
        #expect(tilted?.payloadString.contains(#""state":"tilted""#) == true, "log:\n\(agent.log)")

        let (status, out) = try edgemotion(["events", "set-level", "--config", config, "--broker", broker.url])
        #expect(status == 0, "\(out)")
        let line = try #require(out.split(separator: "\n").first { $0.hasPrefix("{") }, "\(out)")
        let reply = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(reply["ok"] as? Bool == true && reply["action"] as? String == "set_level", "\(line)")
        #expect((reply["id"] as? String)?.hasPrefix("cli-") == true, "the CLI's own request id is echoed: \(line)")

        let both = sub.waitFor(count: 2, topic: "edgemotion/lvl/events/motion", timeout: .seconds(10))
        #expect(both.last?.payloadString.contains(#""state":"level""#) == true, "log:\n\(agent.log)")
        #expect(FileManager.default.fileExists(atPath: dir + "/events-zero"), "the zero pose is kept")
        // The next state/tilt after the change: measured from the new zero, ≈ 0° (noise only).
        let seen = sub.messages(on: "edgemotion/lvl/state/tilt").count
        let after = sub.waitFor(count: seen + 1, topic: "edgemotion/lvl/state/tilt", timeout: .seconds(5)).last
        let tilt = ((after.flatMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] })?["tilt_deg"] as? Double)
        #expect(tilt.map { $0 < 1 } == true, "state/tilt after set-level: \(after?.payloadString ?? "none")")

        // The other two words send their own actions, answered the same way.
        for (word, action) in [("arm-tamper", "arm_tamper"), ("disarm-tamper", "disarm_tamper")] {
            let (s, o) = try edgemotion(["events", word, "--config", config, "--broker", broker.url])
            let l = o.split(separator: "\n").first { $0.hasPrefix("{") }.map(String.init) ?? ""
            let r = (try? JSONSerialization.jsonObject(with: Data(l.utf8))) as? [String: Any]
            #expect(s == 0 && r?["ok"] as? Bool == true && r?["action"] as? String == action, "\(word): \(o)")
        }
        #expect(agent.log.contains("action=arm_tamper") && agent.log.contains("action=disarm_tamper"), "\(agent.log)")
    }

    @Test func theAgentsRefusalIsPrintedWithItsReason() throws {
        let broker = try MosquittoBroker.start()
        let dir = try Reliability.tempDirectory("events-set-level-off")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try Self.config("lvloff", dir: dir, events: false)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        defer { agent.signal(SIGTERM); _ = agent.waitForExit(timeout: 10) }
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/lvloff/status"])
        _ = sub.waitFor(count: 1, topic: "edgemotion/lvloff/status", timeout: .seconds(10))   // the agent is connected
        usleep(500_000)                                                                         // and subscribed to cmd/+
        let (status, out) = try edgemotion(["events", "set-level", "--config", config, "--broker", broker.url])
        #expect(status == 1, "\(out)")
        #expect(out.contains("motion events are off"), "\(out)")
    }

    @Test func noAgentListeningIsANamedTimeout() throws {
        let broker = try MosquittoBroker.start()
        let dir = try Reliability.tempDirectory("events-set-level-none")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try Self.config("lvlnone", dir: dir)
        let started = Date()
        let (status, out) = try edgemotion(["events", "set-level", "--config", config, "--broker", broker.url, "--timeout", "1"])
        #expect(status == 75, "\(out)")
        #expect(out.contains("no reply on edgemotion/lvlnone/cmd/events/result") && out.contains("control.enabled"), "\(out)")
        #expect(Date().timeIntervalSince(started) < 10, "bounded by --timeout")
    }

    @Test func anUnreachableBrokerIsNamed() throws {
        let dir = try Reliability.tempDirectory("events-set-level-nobroker")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try Self.config("lvlx", dir: dir)
        let url = "mqtt://127.0.0.1:\(try MosquittoBroker.freeLoopbackPort())"
        let started = Date()
        let (status, out) = try edgemotion(["events", "set-level", "--config", config, "--broker", url, "--timeout", "1"])
        #expect(status == 69, "\(out)")
        #expect(out.contains("cannot reach the broker") && out.contains(url), "\(out)")
        #expect(Date().timeIntervalSince(started) < 10, "bounded by --timeout")
        let (none, text) = try edgemotion(["events", "set-level", "--config", try AgentProcess.writeConfig("device: { id: lvly }")])
        #expect(none == 2 && text.contains("no broker configured"), "\(text)")
    }
}
