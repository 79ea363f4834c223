import Foundation
import Testing
import Messaging
import TestSupport

/// Activity detection as users see it: the real agent on a simulated timeline, publishing
/// `activity` (retained, on change), `events/activity` (every change, sequence-numbered),
/// `pedometer` and `pedometer/events`, and answering a history query from its SQLite store.
@Suite("Agent activity end to end", .serialized, .ownThread)
struct AgentActivityTests {
    static func json(_ m: MQTTMessage) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(m.payload)) as? [String: Any]) ?? [:]
    }
    func json(_ m: MQTTMessage) -> [String: Any] { Self.json(m) }

    @Test func publishesEachActivityChangeOnceWithStepsAndAnswersAHistoryQuery() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/act/#"])
        let state = NSTemporaryDirectory() + "edgemotion-act-\(UUID().uuidString)"
        TemporaryFiles.removeAtExit(state)
        let config = try AgentProcess.writeConfig("""
        device: { id: act }
        source:
          type: simulator
          rate: 50
          simulator: { scenario: "stationary:40,walking:80,stationary", real_time: false }
        streams:
          accelerometer: { enabled: false }
          gyroscope: { enabled: false }
          magnetometer: { enabled: false }
          motion: { enabled: false }
        activity: { minimum_dwell_s: 5, pedometer_interval_s: 5 }
        state_directory: \(state)
        """)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        // As fast as possible, the 120 s of the timeline pass within a few wall seconds.
        var events: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            events = sub.messages(on: "edgemotion/act/events/activity").map(json)
            let names = events.compactMap { ($0["activity"] as? [String: Any])?["activity"] as? String }
            if names.count >= 3 && names.last == "stationary" { break }
            usleep(200_000)
        }
        // History over MQTT (3.1.1 reply_to form) while the agent runs.
        let now = Date().timeIntervalSince1970
        try sub.client.publish(topic: "edgemotion/act/query/activity",
                               string: #"{"from":\#(now - 3600),"to":\#(now + 30 * 86_400),"reply_to":"edgemotion/act/replies/test"}"#, qos: 1)
        let reply = sub.waitFor(count: 1, topic: "edgemotion/act/replies/test", timeout: .seconds(10)).first
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0, "agent log:\n\(agent.log.suffix(3000))")

        let names = events.compactMap { ($0["activity"] as? [String: Any])?["activity"] as? String }
        #expect(names == ["stationary", "walking", "stationary"], "activity changes: \(names)")
        let seqs = events.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array(0..<seqs.count), "event sequence numbers: \(seqs)")
        let runs = events.compactMap { $0["run"] as? String }
        #expect(runs.count == events.count && Set(runs).count == 1 && runs.allSatisfy { $0.count == 16 && $0.allSatisfy(\.isHexDigit) },
                "one 16-hex run id on every change of one run: \(runs)")
        // Each change carries how long the previous activity lasted: the walk lasted 80 s; the first
        // stationary period counts from when it was first recognised (after the detector's warm-up).
        if names.count == 3 {
            let durations = events.compactMap { ($0["activity"] as? [String: Any])?["previous_duration_s"] as? Double }
            #expect(durations.count == 3, "previous durations: \(durations)")
            if durations.count == 3 {
                #expect(durations[0] == 0 && durations[1] > 5 && durations[1] <= 45 && abs(durations[2] - 80) < 15,
                        "previous durations: \(durations)")
            }
        }
        // The retained current activity is the last change.
        let late = try TestSubscriber(url: broker.url, patterns: ["edgemotion/act/activity"])
        let retained = late.waitFor(count: 1, timeout: .seconds(3)).first
        #expect(retained?.retain == true)
        #expect(retained.map(json)?["activity"] as? String == "stationary")
        // Steps: 80 s of walking at 1.9 steps/s ≈ 152.
        let steps = sub.messages(on: "edgemotion/act/pedometer").compactMap { json($0)["steps"] as? Int }
        #expect((steps.max() ?? 0) > 120 && (steps.max() ?? 0) < 185, "pedometer steps: \(steps)")
        // The walk ended: the last pedometer message says cadence 0, so Home Assistant does not keep
        // showing the walk's cadence while the device is still (issue 16).
        let cadences = sub.messages(on: "edgemotion/act/pedometer").compactMap { json($0)["cadence_steps_per_s"] as? Double }
        #expect(cadences.contains { $0 > 1 } && cadences.last == 0, "pedometer cadences: \(cadences)")
        // ... and is retained: a subscriber that connects later (Home Assistant after a restart)
        // gets the walk's steps and cadence 0 at once.
        let latePedometer = try TestSubscriber(url: broker.url, patterns: ["edgemotion/act/pedometer"])
        let summary = latePedometer.waitFor(count: 1, timeout: .seconds(3)).first
        #expect(summary?.retain == true)
        #expect(summary.map(json)?["cadence_steps_per_s"] as? Double == 0)
        #expect(summary.map(json)?["steps"] as? Int == steps.last)
        // Walking started and ended once: `pedometer/events` says `resume` at the walk's first step
        // and `pause` at its last (80 s of walking on the timeline), numbered from 0 in the same
        // run as `events/activity`.
        let walkEvents = sub.messages(on: "edgemotion/act/pedometer/events").map(json)
        #expect(walkEvents.compactMap { $0["event"] as? String } == ["resume", "pause"], "pedometer events: \(walkEvents)")
        #expect(walkEvents.compactMap { $0["seq"] as? Int } == [0, 1], "pedometer event seqs: \(walkEvents)")
        #expect(walkEvents.count == 2 && walkEvents.allSatisfy { $0["run"] as? String == runs.first }, "pedometer event runs: \(walkEvents)")
        let walkTimes = walkEvents.compactMap { $0["time_utc"] as? Double }
        if walkTimes.count == 2 {
            #expect(abs(walkTimes[1] - walkTimes[0] - 80) < 5, "walk from resume to pause: \(walkTimes[1] - walkTimes[0]) s")
        }
        // The history answered with the same changes.
        let items = (reply.map(json)?["items"] as? [[String: Any]]) ?? []
        #expect(items.compactMap { $0["activity"] as? String } == names, "history reply: \(reply.map { $0.payloadString } ?? "none")")
    }

    /// A source slower than the detector needs (5 Hz < 8 Hz): `health` names the problem (and is
    /// degraded) instead of the agent publishing activities from interpolated samples, and the
    /// log says so once, not once per decision.
    @Test func aSourceTooSlowForActivityDetectionIsReportedInHealthAndLoggedOnce() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/slowact/#"])
        let (agent, health) = try Self.agentOnTheSimulator(id: "slowact", rate: 5, realTime: false, broker: broker, sub: sub) {
            $0["activity_input"] as? String == "rate_too_low"
        }
        usleep(2_500_000)  // a few more decisions and health refreshes: still one log line
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0, "agent log:\n\(agent.log.suffix(3000))")
        #expect(health["activity_input"] as? String == "rate_too_low", "health: \(health)")
        #expect(health["status"] as? String == "degraded", "health: \(health)")
        let error = health["activity_input_error"] as? String ?? ""
        #expect(error.contains("below the 8.0 Hz"), "activity_input_error: \(error)")
        let lines = agent.log.split(separator: "\n").filter { $0.contains("activity detection withheld") }
        #expect(lines.count == 1, "log:\n\(agent.log.suffix(3000))")
        #expect(sub.messages(on: "edgemotion/slowact/events/activity").isEmpty, "no activity from a 5 Hz source")
    }
    /// A 10 Hz source (a low-power accelerometer mode) is usable: `health` says the activity
    /// input is ok and that the low-rate model decides; at 50 Hz the main one does.
    @Test(arguments: [(10.0, "low_rate"), (50.0, "main")])
    func healthNamesTheActivityModelThatDecides(rate: Double, model: String) throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/modelact/health"])
        let (agent, health) = try Self.agentOnTheSimulator(id: "modelact", rate: rate, realTime: true, broker: broker, sub: sub) {
            $0["activity_model"] != nil
        }
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0, "agent log:\n\(agent.log.suffix(3000))")
        #expect(health["activity_model"] as? String == model, "\(rate) Hz: health \(health)")
        #expect(health["activity_input"] as? String == "ok", "\(rate) Hz: health \(health)")
        // docs/topics.md's example shows every field a healthy agent sends.
        let documented = try Self.documentedHealthExample()
        let missing = Set(health.keys).subtracting(documented.keys).sorted()
        #expect(missing.isEmpty, "fields of a real health message missing from docs/topics.md's example: \(missing)")
    }

    /// The JSON example under "## `health` (retained)" in docs/topics.md.
    static func documentedHealthExample() throws -> [String: Any] {
        let text = try String(contentsOf: ConfigTestSupport.packageRoot.appendingPathComponent("docs/topics.md"), encoding: .utf8)
        let section = try #require(text.range(of: "## `health` (retained)\n```json\n"), "docs/topics.md has no health example")
        let end = try #require(text.range(of: "\n```", range: section.upperBound..<text.endIndex))
        let json = Data(text[section.upperBound..<end.lowerBound].utf8)
        return try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any], "the health example is not a JSON object")
    }
    /// Starts the agent on the simulator (walking, accelerometer only, health every second) and
    /// returns it, still running, with the newest `health` once `done` holds for it (or after 30 s).
    static func agentOnTheSimulator(id: String, rate: Double, realTime: Bool, broker: MosquittoBroker, sub: TestSubscriber,
                                    until done: ([String: Any]) -> Bool) throws -> (AgentProcess, [String: Any]) {
        let state = NSTemporaryDirectory() + "edgemotion-\(id)-\(UUID().uuidString)"
        TemporaryFiles.removeAtExit(state)
        let config = try AgentProcess.writeConfig("""
        device: { id: \(id) }
        source:
          type: simulator
          rate: \(rate)
          simulator: { scenario: walking, real_time: \(realTime) }
        streams:
          accelerometer: { enabled: false }
          gyroscope: { enabled: false }
          magnetometer: { enabled: false }
          motion: { enabled: false }
        process: { stats_interval_s: 1 }
        state_directory: \(state)
        """)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        var health: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            health = sub.messages(on: "edgemotion/\(id)/health").last.map { Self.json($0) } ?? [:]
            if done(health) { break }
            usleep(200_000)
        }
        return (agent, health)
    }
}
