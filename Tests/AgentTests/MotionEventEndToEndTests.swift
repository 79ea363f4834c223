import Foundation
import Testing
@testable import Agent
import TestSupport

/// The agent's motion events over a real broker: a board lying still at roll 10°, pitch −5°
/// (the simulator's stationary pose) is ≈ 11° from level, so a `level` threshold at 5° turns on;
/// `cmd/events set_level` makes that pose the zero, and the threshold turns off again; the zero
/// survives a restart, and every run numbers its events under its own run id.
@Suite("Motion events end to end", .serialized, .ownThread)
struct MotionEventEndToEndTests {
    @Test func aThresholdFiresThenSetLevelClearsItAndIsKept() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/ev/#"])
        let dir = try Reliability.tempDirectory("events")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let yaml = """
        device: { id: ev }
        mqtt: { topic_prefix: edgemotion/ev }
        source: { type: simulator, rate: 200, simulator: { scenario: stationary, seed: 3, real_time: true } }
        streams: { accelerometer: { enabled: false }, gyroscope: { enabled: false }, magnetometer: { enabled: false }, motion: { enabled: false } }
        activity: { enabled: false }
        control: { enabled: true }
        state_directory: \(dir)
        events:
          enabled: true
          thresholds:
            level: {above_deg: 5, below_deg: 2, dwell_s: 0.5, on: tilted, off: level}
        """
        let config = try AgentProcess.writeConfig(yaml)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        let first = sub.waitFor(count: 1, topic: "edgemotion/ev/events/motion", timeout: .seconds(10))
        let e0 = first.compactMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }.first
        #expect(e0?["type"] as? String == "tilt_threshold", "log:\n\(agent.log)")
        #expect(e0?["state"] as? String == "tilted")
        #expect(e0?["seq"] as? Int == 0)
        let tilt = (e0?["tilt_deg"] as? Double) ?? 0
        // acos(cos 10° · cos 5°) = 11.2°: the angle between z and the tilted up-vector.
        #expect(abs(tilt - 11.2) < 0.5, "tilt \(tilt)")
        let pub = try TestSubscriber(url: broker.url, patterns: ["unused/x"])
        try pub.client.publish(topic: "edgemotion/ev/cmd/events", string: #"{"id":"z1","action":"set_level"}"#, qos: 1)
        let reply = sub.waitFor(count: 1, topic: "edgemotion/ev/cmd/events/result", timeout: .seconds(5)).first?.payloadString ?? ""
        #expect(reply.contains(#""ok":true"#), "reply \(reply)")
        let both = sub.waitFor(count: 2, topic: "edgemotion/ev/events/motion", timeout: .seconds(10))
        let e1 = both.compactMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }.last
        #expect(e1?["state"] as? String == "level" && e1?["seq"] as? Int == 1, "log:\n\(agent.log)")
        #expect(FileManager.default.fileExists(atPath: dir + "/events-zero"), "the zero pose is kept in the state directory")
        let state = sub.waitFor(count: 1, topic: "edgemotion/ev/state/tilt", timeout: .seconds(5)).first
        #expect(state?.payloadString.contains("tilt_deg") == true)
        let bad = try TestSubscriber(url: broker.url, patterns: ["unused/y"])
        try bad.client.publish(topic: "edgemotion/ev/cmd/events", string: #"{"action":"explode"}"#, qos: 1)
        let refused = sub.waitFor(count: 2, topic: "edgemotion/ev/cmd/events/result", timeout: .seconds(5)).last?.payloadString ?? ""
        #expect(refused.contains("unknown action"), "\(refused)")
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0)
        let run1 = both.compactMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }
            .compactMap { $0["run"] as? String }
        #expect(run1.count == 2 && Set(run1).count == 1 && run1[0].count == 16 && run1[0].allSatisfy(\.isHexDigit),
                "both events of one run carry one 16-hex run id: \(run1)")

        // Restarted on the same board, still in that pose: the kept zero is read back, so the pose is
        // level (0°, not the 11.2° from true level) and the threshold stays off.
        let tiltsBefore = sub.messages(on: "edgemotion/ev/state/tilt").count
        let again = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        let tilts = sub.waitFor(count: tiltsBefore + 3, topic: "edgemotion/ev/state/tilt", timeout: .seconds(15))
        let restarted = tilts.dropFirst(tiltsBefore).last
            .flatMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }
        let tiltAfterRestart = (restarted?["tilt_deg"] as? Double) ?? .nan
        #expect(tiltAfterRestart < 2, "tilt after a restart with the kept zero: \(tiltAfterRestart)°, log:\n\(again.log)")
        #expect(sub.messages(on: "edgemotion/ev/events/motion").count == 2, "no threshold change after the restart")
        again.signal(SIGTERM)
        #expect(again.waitForExit(timeout: 10) == 0)

        // Without the zero file the pose is 11.2° from level again: the threshold turns on, and the new
        // run numbers its events from 0 under a run id of its own, so (run, seq) never repeats.
        try FileManager.default.removeItem(atPath: dir + "/events-zero")
        let third = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        let three = sub.waitFor(count: 3, topic: "edgemotion/ev/events/motion", timeout: .seconds(10))
        let e2 = three.dropFirst(2).first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }
        #expect(e2?["state"] as? String == "tilted" && e2?["seq"] as? Int == 0, "log:\n\(third.log)")
        let run3 = e2?["run"] as? String
        #expect(run3 != nil && run3 != run1.first, "run ids: \(run1.first ?? "-") then \(run3 ?? "-")")
        third.signal(SIGTERM)
        #expect(third.waitForExit(timeout: 10) == 0)
    }

    /// `state/tilt` and `summary` (Home Assistant's Roll/Pitch) use the same axes: the simulator's
    /// board rests at Core Motion roll 10° (about y), pitch −5° (about x) (`StationaryMotion`), so
    /// with the zero pose level both report roll ≈ 10°, pitch ≈ −5° — before the fix `state/tilt`
    /// said roll −5°, pitch 10° (roll about x).
    @Test func stateTiltAndTheSummaryReportTheSameRollAndPitch() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/evp/#"])
        let dir = try Reliability.tempDirectory("events-axes")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try AgentProcess.writeConfig("""
        device: { id: evp }
        mqtt: { topic_prefix: edgemotion/evp }
        source: { type: simulator, rate: 100, simulator: { scenario: stationary, seed: 3, real_time: true } }
        streams: { accelerometer: { enabled: false }, gyroscope: { enabled: false }, magnetometer: { enabled: false }, motion: { enabled: true, publish_rate: 1 } }
        activity: { enabled: false }
        home_assistant: { enabled: true, heartbeat_s: 1, expire_after_s: 0 }
        state_directory: \(dir)
        events: { enabled: true }
        """)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        func angles(_ topic: String) -> (roll: Double, pitch: Double)? {
            // The newest of the first three messages: fusion and the tilt low-pass have settled.
            let m = sub.waitFor(count: 3, topic: topic, timeout: .seconds(15)).last
            guard let o = m.flatMap({ try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }),
                  let r = o["roll_deg"] as? Double, let p = o["pitch_deg"] as? Double else { return nil }
            return (r, p)
        }
        let tilt = angles("edgemotion/evp/state/tilt")
        let summary = angles("edgemotion/evp/summary")
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0)
        let t = try #require(tilt, "state/tilt; log:\n\(agent.log)")
        let s = try #require(summary, "summary; log:\n\(agent.log)")
        #expect(abs(t.roll - 10) < 1 && abs(t.pitch + 5) < 1, "state/tilt roll \(t.roll) pitch \(t.pitch)")
        #expect(abs(s.roll - 10) < 1 && abs(s.pitch + 5) < 1, "summary roll \(s.roll) pitch \(s.pitch)")
    }

    /// `events/motion` is never dropped for lack of a broker (docs/topics.md): an event decided
    /// while no broker is reachable stays in the spool across the agent's exit and is delivered by
    /// the next run. The resting simulator is 11.2° from level, so a 5° threshold fires ~0.5 s in.
    @Test func anEventDecidedWithoutABrokerIsDeliveredByTheNextRun() throws {
        let dir = try Reliability.tempDirectory("events-spool")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try AgentProcess.writeConfig("""
        device: { id: evs }
        mqtt: { topic_prefix: edgemotion/evs }
        source: { type: simulator, rate: 200, simulator: { scenario: stationary, seed: 3, real_time: true } }
        streams: { accelerometer: { enabled: false }, gyroscope: { enabled: false }, magnetometer: { enabled: false }, motion: { enabled: false } }
        activity: { enabled: false }
        state_directory: \(dir)
        events:
          enabled: true
          thresholds:
            level: {above_deg: 5, below_deg: 2, dwell_s: 0.5, on: tilted, off: level}
        """)
        let unreachable = "mqtt://127.0.0.1:\(try MosquittoBroker.freeLoopbackPort())"
        let offline = try AgentProcess(["run", "--config", config, "--broker", unreachable, "--duration", "3"])
        #expect(offline.waitForExit(timeout: 20) == 0, "agent log:\n\(offline.log)")
        let kept = offline.log.firstMatch(of: /events_kept_in_spool=(\d+)/).flatMap { Int($0.1) } ?? 0
        #expect(kept >= 1, "the threshold event waits in the spool; agent log:\n\(offline.log)")

        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/evs/events/motion"])
        let secondStart = Date().timeIntervalSince1970
        let online = try AgentProcess(["run", "--config", config, "--broker", broker.url, "--duration", "3"])
        #expect(online.waitForExit(timeout: 20) == 0, "agent log:\n\(online.log)")
        let events = sub.waitFor(count: 2, topic: "edgemotion/evs/events/motion", timeout: .seconds(5))
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }
        let earlier = events.filter { ($0["timestamp_utc"] as? Double ?? .infinity) < secondStart }
        #expect(earlier.count == 1 && earlier.first?["type"] as? String == "tilt_threshold" && earlier.first?["state"] as? String == "tilted",
                "the first run's event, delivered by the second: \(events); log:\n\(online.log)")
        #expect(events.count >= 2, "and the second run's own: \(events)")
    }
}
