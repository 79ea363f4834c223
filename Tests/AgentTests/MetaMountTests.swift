import Foundation
import Testing
@testable import Agent
import TestSupport

/// The retained `meta` says which chip-to-board rotations and which output frame the agent runs
/// with, so a subscriber can tell board axes from chip axes without the configuration. Checked
/// through a real mosquitto: the retained copy a late subscriber gets, and the republished one
/// after `cmd/mount` learns and clears a mount live.
@Suite("meta: mount and output frame", .serialized, .ownThread)
struct MetaMountTests {
    func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    func mount(_ meta: [String: Any]) -> (accelGyro: [[Double]], magnetometer: [[Double]], source: String?) {
        let m = meta["mount"] as? [String: Any] ?? [:]
        return ((m["accel_gyro"] as? [[Double]]) ?? [], (m["magnetometer"] as? [[Double]]) ?? [], m["source"] as? String)
    }

    let identity: [[Double]] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]

    /// `accel_gyro: {x: -y, y: x, z: z}` is, row by row, board x = −chip y → (0, −1, 0),
    /// board y = chip x → (1, 0, 0), board z = chip z → (0, 0, 1); the magnetometer, not given,
    /// follows it. A subscriber that connects after the agent gets it retained.
    @Test func aConfiguredMountAndTheOutputFrameAreRetainedInMeta() throws {
        let broker = try MosquittoBroker.start()
        let dir = try Reliability.tempDirectory("meta-mount")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try AgentProcess.writeConfig("""
        device: { id: mm }
        mqtt: { topic_prefix: edgemotion/mm }
        source: { type: simulator, rate: 100, mount: { accel_gyro: {x: -y, y: x, z: z} },
                  simulator: { scenario: stationary, seed: 3, real_time: true } }
        fusion: { output_frame: enu }
        activity: { enabled: false }
        state_directory: \(dir)
        """)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        // The late subscriber comes after the agent has published its meta (not while it does).
        let first = try TestSubscriber(url: broker.url, patterns: ["edgemotion/mm/meta"])
        _ = first.waitFor(count: 1, topic: "edgemotion/mm/meta", timeout: .seconds(15))
        let late = try TestSubscriber(url: broker.url, patterns: ["edgemotion/mm/meta"])
        // The broker's stored copy (a live republication may also arrive; the retained one is the point).
        let retained = try #require(late.waitFor(count: 1, timeout: .seconds(10)) { $0.topic == "edgemotion/mm/meta" && $0.retain }.first,
                                    "no retained meta; agent log:\n\(agent.log)")
        let meta = json(retained.payloadString)
        #expect(meta["output_frame"] as? String == "enu", "\(retained.payloadString)")
        let m = mount(meta)
        #expect(m.accelGyro == [[0, -1, 0], [1, 0, 0], [0, 0, 1]], "\(retained.payloadString)")
        #expect(m.magnetometer == [[0, -1, 0], [1, 0, 0], [0, 0, 1]])
        #expect(m.source == "config")
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0)
    }

    /// Nothing configured: identity and `core_motion`. `cmd/mount` learning the simulator's
    /// 11.2° tilt (roll 10°, pitch −5°) republishes `meta` with the learned rotation (its angle,
    /// from the trace, cos θ = (tr − 1)/2, is the tilt) and `source: learned`; `clear` goes back
    /// to the identity.
    @Test func cmdMountRepublishesMetaWithTheLearnedRotation() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/ml/meta", "edgemotion/ml/cmd/mount/result"])
        let dir = try Reliability.tempDirectory("meta-learn")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try AgentProcess.writeConfig("""
        device: { id: ml }
        mqtt: { topic_prefix: edgemotion/ml }
        source: { type: simulator, rate: 100, simulator: { scenario: stationary, seed: 3, real_time: true } }
        streams: { accelerometer: { enabled: false }, gyroscope: { enabled: false }, magnetometer: { enabled: false } }
        activity: { enabled: false }
        control: { enabled: true }
        state_directory: \(dir)
        """)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        let start = json(sub.waitFor(count: 1, topic: "edgemotion/ml/meta", timeout: .seconds(15)).first?.payloadString ?? "")
        #expect(start["output_frame"] as? String == "core_motion", "\(start)\n\(agent.log)")
        #expect(mount(start).accelGyro == identity && mount(start).magnetometer == identity && mount(start).source == "identity", "\(start)")

        let pub = try TestSubscriber(url: broker.url, patterns: ["unused/x"])
        try pub.client.publish(topic: "edgemotion/ml/cmd/mount", string: #"{"id":"m1","action":"learn","samples":100}"#, qos: 1)
        let reply = json(sub.waitFor(count: 1, topic: "edgemotion/ml/cmd/mount/result", timeout: .seconds(10)).first?.payloadString ?? "")
        #expect(reply["ok"] as? Bool == true, "\(reply)\n\(agent.log)")
        let learned = sub.waitFor(count: 2, topic: "edgemotion/ml/meta", timeout: .seconds(5))
        let meta = json(learned.last?.payloadString ?? "")
        let m = mount(meta)
        #expect(m.source == "learned", "\(meta)")
        #expect(m.accelGyro.count == 3 && m.accelGyro.allSatisfy { $0.count == 3 }, "\(meta)")
        if m.accelGyro.count == 3, m.accelGyro.allSatisfy({ $0.count == 3 }) {
            let trace = m.accelGyro[0][0] + m.accelGyro[1][1] + m.accelGyro[2][2]
            let angle = acos((trace - 1) / 2) * 180 / .pi
            #expect(abs(angle - 11.2) < 0.5, "rotation angle \(angle)")
            #expect(m.magnetometer == m.accelGyro, "the magnetometer follows accel_gyro when not configured")
        }
        // The republished meta is the retained one a late subscriber gets.
        let late = try TestSubscriber(url: broker.url, patterns: ["edgemotion/ml/meta"])
        let retained = json(late.waitFor(count: 1, topic: "edgemotion/ml/meta", timeout: .seconds(5)).first?.payloadString ?? "")
        #expect(mount(retained).source == "learned")

        try pub.client.publish(topic: "edgemotion/ml/cmd/mount", string: #"{"id":"m2","action":"clear"}"#, qos: 1)
        let cleared = sub.waitFor(count: 3, topic: "edgemotion/ml/meta", timeout: .seconds(5))
        let after = json(cleared.last?.payloadString ?? "")
        #expect(cleared.count == 3 && mount(after).source == "identity" && mount(after).accelGyro == identity, "\(after)")
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0)
    }
}
