import Foundation
import Testing
@testable import Agent
import MotionCore
import TestSupport

/// Learning the mount from a resting reading, as users do it: `edgemotion mount learn` with the
/// agent stopped, and `cmd/mount` on a running agent over a real broker. The simulator's
/// stationary board lies at roll 10°, pitch −5°: 11.2° from level (acos(cos 10° · cos 5°)).
@Suite("Mount learning end to end", .serialized, .ownThread)
struct MountEndToEndTests {
    func run(_ arguments: [String]) throws -> (Int32?, String) {
        let p = try AgentProcess(arguments)
        let status = p.waitForExit(timeout: 60)
        return (status, p.log)
    }

    func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    @Test func theCLILearnsTheSimulatedTiltAndRefusesAWalk() throws {
        let dir = try Reliability.tempDirectory("mount-cli")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let still = try AgentProcess.writeConfig("""
        state_directory: \(dir)
        source: { type: simulator, rate: 200, simulator: { scenario: stationary, seed: 4, real_time: false } }
        """)
        let (status, out) = try run(["mount", "learn", "--config", still, "--samples", "400"])
        #expect(status == 0, "\(out)")
        let tilt = out.split(separator: "\n").first { $0.contains("tilt") }.flatMap { line -> Double? in
            guard let r = line.range(of: "tilt ") else { return nil }
            return Double(line[r.upperBound...].prefix { $0 == "." || $0.isNumber })
        }
        #expect(tilt.map { abs($0 - 11.2) < 0.5 } == true, "\(out)")
        let file = dir + "/edgemotion-mount.txt"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let mount = try MountFile.decode(text, source: file)
        // The shortest rotation from the tilted up to +z turns by the tilt itself: its angle,
        // from the trace (cos θ = (tr − 1) / 2), is 11.2° too.
        let m = mount.matrix
        let angle = ((m.a11 + m.a22 + m.a33 - 1) / 2).acos * 180 / .pi
        #expect(abs(angle - 11.2) < 0.5, "rotation angle \(angle)")
        let (shown, show) = try run(["mount", "show", "--config", still])
        #expect(shown == 0 && show.contains("learned (") && show.contains("applied: accel_gyro"), "\(show)")

        let walking = try AgentProcess.writeConfig("""
        state_directory: \(dir)
        source: { type: simulator, rate: 200, simulator: { scenario: walking, seed: 4, real_time: false } }
        """)
        let (refused, why) = try run(["mount", "learn", "--config", walking])
        #expect(refused == 65 && why.contains("not at rest"), "\(why)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == text, "a refused learning leaves the stored mount alone")

        // Damaged: check-config names the file; show says so; nothing crashes.
        try "format = edgemotion-mount\nrotation = 1 0 0\n".write(toFile: file, atomically: true, encoding: .utf8)
        let (checked, check) = try run(["check-config", still])
        #expect(checked != 0 && check.contains(file) && check.contains("source.mount"), "\(check)")
        let (damaged, d) = try run(["mount", "show", "--config", still])
        #expect(damaged == 65 && d.contains("checksum") , "\(d)")
        let (cleared, c) = try run(["mount", "clear", "--config", still])
        #expect(cleared == 0 && !FileManager.default.fileExists(atPath: file), "\(c)")

        let fixed = try AgentProcess.writeConfig("""
        state_directory: \(dir)
        source: { type: simulator, mount: { accel_gyro: {x: -y, y: x, z: z} } }
        """)
        let (no, n) = try run(["mount", "learn", "--config", fixed])
        #expect(no == 2 && n.contains("fixed in the configuration"), "\(n)")
    }

    @Test func cmdMountLearnsOnTheRunningAgentAndAppliesItAtOnce() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/mt/#"])
        let dir = try Reliability.tempDirectory("mount-mqtt")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try AgentProcess.writeConfig("""
        device: { id: mt }
        mqtt: { topic_prefix: edgemotion/mt }
        source: { type: simulator, rate: 100, simulator: { scenario: stationary, seed: 3, real_time: true } }
        streams: { accelerometer: { enabled: false }, gyroscope: { enabled: false }, magnetometer: { enabled: false },
                   motion: { rate: 20, publish_rate: 5 } }
        activity: { enabled: false }
        control: { enabled: true }
        state_directory: \(dir)
        """)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        func gravity(after count: Int) -> [Double] {
            let m = sub.waitFor(count: count, topic: "edgemotion/mt/motion", timeout: .seconds(15)).last?.payloadString ?? ""
            let s = (json(m)["samples"] as? [[String: Any]])?.last
            return (s?["gravity"] as? [Double]) ?? []
        }
        let before = gravity(after: 10)
        #expect(before.count == 3 && hypot(before[0], before[1]) > 0.15, "tilted before: \(before)\n\(agent.log)")
        let pub = try TestSubscriber(url: broker.url, patterns: ["unused/x"])
        try pub.client.publish(topic: "edgemotion/mt/cmd/mount", string: #"{"id":"m1","action":"learn","samples":100}"#, qos: 1)
        let reply = json(sub.waitFor(count: 1, topic: "edgemotion/mt/cmd/mount/result", timeout: .seconds(10)).first?.payloadString ?? "")
        #expect(reply["ok"] as? Bool == true && reply["id"] as? String == "m1", "\(reply)\n\(agent.log)")
        #expect(((reply["tilt_deg"] as? Double) ?? 0) > 10.7 && ((reply["tilt_deg"] as? Double) ?? 99) < 11.7, "\(reply)")
        #expect(FileManager.default.fileExists(atPath: dir + "/edgemotion-mount.txt"))
        // Applied live: a few seconds later the board reads level (gravity on −z).
        let seen = sub.messages(on: "edgemotion/mt/motion").count
        let after = gravity(after: seen + 25)
        #expect(after.count == 3 && hypot(after[0], after[1]) < 0.02 && after[2] < -0.99, "level after: \(after)")
        // Bad payloads are answered, not obeyed.
        try pub.client.publish(topic: "edgemotion/mt/cmd/mount", string: #"{"action":"learn","samples":"many"}"#, qos: 1)
        let bad = sub.waitFor(count: 2, topic: "edgemotion/mt/cmd/mount/result", timeout: .seconds(5)).last?.payloadString ?? ""
        #expect(bad.contains(#""ok":false"#) && bad.contains("samples"), "\(bad)")
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0)

        // At the next start the stored mount is applied from the first sample.
        let again = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        let n = sub.messages(on: "edgemotion/mt/motion").count
        let restarted = gravity(after: n + 10)
        #expect(restarted.count == 3 && hypot(restarted[0], restarted[1]) < 0.02, "after restart: \(restarted)\n\(again.log)")
        again.signal(SIGTERM)
        #expect(again.waitForExit(timeout: 10) == 0)
    }
}
