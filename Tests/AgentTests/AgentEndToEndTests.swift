import Foundation
import Testing
import MotionCore
import Messaging
import TestSupport

/// The agent as users run it: the real `edgemotion` binary, a real mosquitto on a free loopback
/// port, a real libmosquitto subscriber.
@Suite("Agent end to end", .serialized, .ownThread)
struct AgentEndToEndTests {
    struct Batch {
        var seq: Int
        var n: Int
        var firstSample: Int
        var t0: Int64
        var dt: [Int64]
        var json: [String: Any]
    }

    func decode(_ m: MQTTMessage) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(m.payload)) as? [String: Any], "payload of \(m.topic) is not a JSON object")
    }

    func batches(_ sub: TestSubscriber, _ topic: String) throws -> [Batch] {
        try sub.messages(on: topic).map { m in
            let j = try decode(m)
            return Batch(seq: j["seq"] as? Int ?? -1, n: j["n"] as? Int ?? -1, firstSample: j["first_sample"] as? Int ?? -1,
                         t0: (j["t0_mono_ns"] as? NSNumber)?.int64Value ?? -1,
                         dt: (j["dt_us"] as? [NSNumber])?.map(\.int64Value) ?? [], json: j)
        }
    }

    @Test func publishesEverySensorGapFreeWithDocumentedFieldsAndStopsCleanlyOnSIGTERM() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/#"])
        let config = try AgentProcess.writeConfig("""
        device: { id: e2e }
        source:
          type: simulator
          rate: 200
          simulator: { scenario: stationary, seed: 7, real_time: true }
        streams:
          accelerometer: { rate: 200, publish_rate: 10 }
          gyroscope: { rate: 100, publish_rate: 10 }
          magnetometer: { rate: 50, publish_rate: 5 }
          motion: { rate: 50, publish_rate: 10 }
        fusion: { reference_frame: xMagneticNorthZVertical }
        state_directory: \(NSTemporaryDirectory())edgemotion-e2e-\(UUID().uuidString)
        """)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        usleep(10_000_000)
        let stopAsked = Date()
        agent.signal(SIGTERM)
        let status = agent.waitForExit(timeout: 5)
        let stopTook = Date().timeIntervalSince(stopAsked)
        usleep(300_000)
        #expect(status == 0, "agent log:\n\(agent.log)")
        #expect(stopTook < 2.0, "SIGTERM to exit took \(stopTook) s")

        // status: online first, offline last, both retained at the broker.
        let statuses = sub.messages(on: "edgemotion/e2e/status").map(\.payloadString)
        #expect(statuses.first == "online")
        #expect(statuses.last == "offline")
        let late = try TestSubscriber(url: broker.url, patterns: ["edgemotion/e2e/status", "edgemotion/e2e/meta"])
        let retained = late.waitFor(count: 2, timeout: .seconds(3))
        #expect(retained.contains { $0.topic.hasSuffix("status") && $0.payloadString == "offline" && $0.retain })
        #expect(retained.contains { $0.topic.hasSuffix("meta") && $0.retain })

        // Every sensor stream: gap-free message and sample sequence, expected count (±2 %), units.
        let expectations: [(String, Double, String)] = [("accelerometer", 200, "g"), ("gyroscope", 100, "rad/s"), ("magnetometer", 50, "uT")]
        for (name, rate, unit) in expectations {
            let b = try batches(sub, "edgemotion/e2e/sensor/\(name)")
            try #require(b.count > 5, "no \(name) batches; agent log:\n\(agent.log)")
            let gapFree = b.map(\.seq) == Array(0..<b.count)
            #expect(gapFree, "\(name) message sequence has gaps (first \(b.first!.seq), last \(b.last!.seq), \(b.count) messages)")
            let total = b.reduce(0) { $0 + $1.n }
            let span = Double(b.last!.t0 - b.first!.t0) / 1e9 + Double(b.last!.dt.last ?? 0) / 1e6
            let expected = span * rate + 1
            #expect(abs(Double(total) - expected) <= 0.02 * expected, "\(name): \(total) samples over \(span) s at \(rate) Hz")
            #expect(abs(Double(total) - 10 * rate) <= 0.05 * 10 * rate, "\(name): \(total) samples in a 10 s run")
            // Source sample numbers advance by the decimation factor, without holes.
            let step = Int((200 / rate).rounded())
            for (a, c) in zip(b, b.dropFirst()) { #expect(c.firstSample - a.firstSample == a.n * step) }
            for batch in b {
                #expect(batch.json["unit"] as? String == unit)
                #expect(batch.json["sensor"] as? String == name)
                #expect((batch.json["x"] as? [Double])?.count == batch.n)
                #expect(batch.dt.count == batch.n)
                #expect((batch.json["t0_utc_us"] as? NSNumber).map { abs($0.doubleValue / 1e6 - Date().timeIntervalSince1970) < 60 } == true)
            }
        }
        // Accelerometer of a device at rest: |a| ≈ 1 g (Core Motion units).
        let acc = try batches(sub, "edgemotion/e2e/sensor/accelerometer").last!.json
        let (x, y, z) = ((acc["x"] as! [Double])[0], (acc["y"] as! [Double])[0], (acc["z"] as! [Double])[0])
        #expect(abs((x * x + y * y + z * z).squareRoot() - 1) < 0.05)

        // Motion: attitude within 2° of the simulator's truth after convergence.
        // Stationary truth: roll 10°, pitch −5°, yaw 30° in ENU; published frame is NWU.
        // NWU's x is north where ENU's is east: an ENU yaw of 30° (x 30° north of east) is a
        // NWU yaw of 30° − 90° = −60° (x 60° east of north).
        let truthNWU = Attitude(roll: 10.0.radians, pitch: -5.0.radians, yaw: -60.0.radians).quaternion
        let motion = try batches(sub, "edgemotion/e2e/motion")
        let motionGapFree = motion.map(\.seq) == Array(0..<motion.count)
        #expect(motionGapFree, "motion message sequence has gaps")
        let samples = motion.flatMap { ($0.json["samples"] as? [[String: Any]]) ?? [] }
        #expect(samples.count >= 450)
        let settled = samples.suffix(samples.count / 2)
        var worst = 0.0
        for s in settled {
            let q = (s["quaternion"] as? [Double]) ?? [1, 0, 0, 0]
            let est = Quaternion(w: q[0], x: q[1], y: q[2], z: q[3])
            worst = max(worst, (est * truthNWU.conjugate).angle.degrees)
            #expect((s["heading"] as? Double).map { $0 >= 0 && $0 < 360 } == true)
        }
        #expect(worst < 2.0, "attitude error \(worst)° against the simulator's truth")
        #expect(motion.first?.json["frame"] as? String == "xMagneticNorthZVertical")
    }

    @Test(.enabled(if: SharedData.path("data/fusion/02_undisturbed_slow_rotation_B.csv.gz") != nil, "shared data folder ../shared is absent (never copied into the repository)"))
    func replaysARecordedTrialThroughTheWholeAgentAndExitsAtItsEnd() throws {
        let trial = try #require(SharedData.path("data/fusion/02_undisturbed_slow_rotation_B.csv.gz"))
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/replay/#"])
        let config = try AgentProcess.writeConfig("""
        device: { id: replay }
        source:
          type: replay
          rate: 285.714
          replay: { file: \(trial), speed: max }
        streams:
          accelerometer: { rate: 0, publish_rate: 28.5714 }
          gyroscope: { enabled: false }
          magnetometer: { enabled: false }
          motion: { rate: 0, publish_rate: 28.5714 }
        state_directory: \(NSTemporaryDirectory())edgemotion-replay-\(UUID().uuidString)
        """)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        let status = agent.waitForExit(timeout: 120)
        #expect(status == 0, "agent log:\n\(agent.log)")
        #expect(agent.log.contains("end of recording"))
        usleep(500_000)
        let acc = try batches(sub, "edgemotion/replay/sensor/accelerometer")
        let total = acc.reduce(0) { $0 + $1.n }
        // README: 53240 samples; every one must arrive (replay is lossless, loopback broker).
        #expect(total == 53240, "received \(total) of 53240 samples in \(acc.count) messages")
        let gapFree = acc.map(\.seq) == Array(0..<acc.count)
        #expect(gapFree, "accelerometer messages: first seq \(acc.first?.seq ?? -1), \(acc.count) messages")
        let motionSamples = try batches(sub, "edgemotion/replay/motion").reduce(0) { $0 + $1.n }
        #expect(motionSamples == 53240)
    }
}

/// Pull over MQTT: retained `latest/<stream>` snapshots and `query/latest`, from the agent's own
/// pull-only `MotionManager`.
@Suite("Agent latest snapshots", .serialized, .ownThread)
struct AgentLatestSnapshotTests {
    @Test func retainsTheNewestValueOfEachStreamAndAnswersQueryLatest() throws {
        let broker = try MosquittoBroker.start()
        let state = NSTemporaryDirectory() + "edgemotion-latest-\(UUID().uuidString)"
        let config = try AgentProcess.writeConfig("""
        device: { id: latest }
        source: { type: simulator, rate: 100, simulator: { scenario: stationary } }
        streams: { latest_interval_s: 0.5, accelerometer: { enabled: false }, gyroscope: { enabled: false } }
        state_directory: \(state)
        """)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        defer { agent.signal(SIGTERM); agent.waitForExit(timeout: 10) }
        usleep(3_000_000)
        // A dashboard that wakes up gets the current values at once, from the retained topics.
        let late = try TestSubscriber(url: broker.url, patterns: ["edgemotion/latest/latest/#", "edgemotion/latest/replies/#"])
        // (A fresh snapshot may be published while the broker hands out the stored ones: count
        // only messages delivered from the retained store.)
        let retained = late.waitFor(count: 4, timeout: .seconds(5)) { $0.retain }
        #expect(Set(retained.map(\.topic)) == Set(["accelerometer", "gyroscope", "magnetometer", "motion"].map { "edgemotion/latest/latest/" + $0 }),
                "agent log:\n\(agent.log.suffix(2000))")
        let acc = retained.first { $0.topic.hasSuffix("/accelerometer") }.flatMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }
        let v = (acc?["value"] as? [Double]) ?? []
        #expect(v.count == 3 && abs((v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).squareRoot() - 1) < 0.05, "accelerometer snapshot: \(String(describing: acc))")
        // query/latest answers all four in one document.
        try late.client.publish(topic: "edgemotion/latest/query/latest", string: #"{"id":"w1","reply_to":"edgemotion/latest/replies/w1"}"#, qos: 1)
        // (Snapshots keep arriving every 0.5 s on the same wildcard; wait for the reply itself.)
        let reply = late.waitFor(count: 1, topic: "edgemotion/latest/replies/w1", timeout: .seconds(10)).first
        let body = reply.flatMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] } ?? [:]
        #expect(body["id"] as? String == "w1")
        for k in ["accelerometer", "gyroscope", "magnetometer", "motion"] { #expect(body[k] is [String: Any], "\(k) missing in \(body)") }
    }
}

/// Core Motion's `deviceRequiresMovement` on a real magnet-disturbed recording: said once per
/// episode on `events/status`, never per sample.
@Suite("Agent device-requires-movement", .serialized, .ownThread)
struct AgentMovementAdvisorTests {
    @Test(.enabled(if: SharedData.path("data/fusion/32_disturbed_attached_magnet_1cm.csv.gz") != nil, "shared data folder ../shared is absent (never copied into the repository)"))
    func aMagnetDisturbedRecordingOpensAndClosesEpisodesOncePerEpisode() throws {
        let trial = try #require(SharedData.path("data/fusion/32_disturbed_attached_magnet_1cm.csv.gz"))
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/mag/events/status"])
        let config = try AgentProcess.writeConfig("""
        device: { id: mag }
        source: { type: replay, rate: 285.714, replay: { file: \(trial), speed: max } }
        streams:
          accelerometer: { enabled: false }
          gyroscope: { enabled: false }
          magnetometer: { enabled: false }
          motion: { enabled: false }
        fusion: { reference_frame: xMagneticNorthZVertical }
        activity: { enabled: false }
        state_directory: \(NSTemporaryDirectory())edgemotion-mag-\(UUID().uuidString)
        """)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        #expect(agent.waitForExit(timeout: 120) == 0, "agent log:\n\(agent.log.suffix(3000))")
        usleep(500_000)
        let events = sub.messages(on: "edgemotion/mag/events/status").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any])?["event"] as? String
        }
        print("events/status: \(events)")
        #expect(events.contains("deviceRequiresMovement"), "events: \(events)")
        // Episodes alternate: never the same announcement twice in a row.
        let alternates = zip(events, events.dropFirst()).allSatisfy { $0 != $1 }
        #expect(alternates, "events: \(events)")
        #expect(events.count < 40, "episodes are announced once each, not per sample: \(events.count)")
    }
}
