import Foundation
import Testing
import EdgeMotion
import Messaging
import MotionCore
import TestSupport
@testable import Agent

/// `query/recordings` on a real broker, over files the real recorder (`FileSensorRecorder`) wrote
/// into a temporary state directory: the file summary, samples paged across files, the MQTT 5 and
/// the `reply_to` forms, error replies, and the agent answering it while it records.
@Suite("Recording queries over MQTT", .serialized, .ownThread)
struct RecordingQueryTests {
    /// 2025-11-30T00:00:00Z: the UTC time of sample 0.
    static let t0 = 1_764_460_800.0
    static let monotonicStart: UInt64 = 7_000_000_000_000
    /// Samples recorded: 200 Hz, sequence = index.
    static let count = 500

    /// Records `count` samples at 200 Hz through the real recorder into `<state>/recordings`,
    /// rotating every 200 samples (files of 200, 200 and 100 samples, starting at t0, t0+1, t0+2).
    func record() throws -> (state: String, store: RecordingStore) {
        let state = NSTemporaryDirectory() + "edgemotion-recq-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let directory = RecorderSettings().resolvedDirectory(stateDirectory: state)
        let store = RecordingStore(directory: directory, limits: RecordingLimits(maximumFileBytes: 8000))
        let offset = Int64(Self.t0 * 1e9) - Int64(Self.monotonicStart)
        let recorder = FileSensorRecorder(store: store, clock: WallClockMapping(offsetNanos: offset)) { created in
            RecordingHeader(deviceID: "q", source: "test", rateHz: 200, sensors: .all, utcOffsetNanos: offset, createdUTCNanos: created)
        }
        var samples: [IMUSample] = []
        for i in 0..<Self.count {
            samples.append(IMUSample(timestampNanos: Self.monotonicStart + UInt64(i) * 5_000_000, sequence: UInt64(i),
                                     specificForce: Vector3(0, 0, 9.80665), rotationRate: Vector3(0.25, -0.5, Double(i) * 0.001),
                                     magneticField: Vector3(20.5, -3.25, -40.125), contents: .all, flags: [.hardwareTimestamp]))
        }
        for start in stride(from: 0, to: Self.count, by: 50) {
            recorder.pipeline(didProduce: samples[start..<(start + 50)].span, of: .accelerometer, interval: 0.005)
        }
        recorder.pipeline(didEnd: .stopped)
        #expect(recorder.status.error == nil)
        #expect(store.list().map(\.samples) == [200, 200, 100], "the recorder rotates every 200 samples")
        return (state, store)
    }

    func responder(_ broker: MosquittoBroker, _ source: HistoryQueryResponder.Source, protocolVersion: MQTTProtocolVersion = .v311) throws -> MQTTClient {
        var options = MQTTConnectionOptions(address: try MQTTBrokerAddress(url: broker.url), clientID: "agent-\(UUID().uuidString.prefix(8))")
        options.protocolVersion = protocolVersion
        let client = try MQTTClient(options: options)
        let r = HistoryQueryResponder(client: client, topics: try TopicLayout(prefix: "edgemotion/r"), source: source)
        client.onMessage = { m in r.handle(m) }
        try r.subscribe()
        try client.start()
        #expect(client.waitUntilConnected(timeout: .seconds(5)))
        return client
    }

    func json(_ m: MQTTMessage) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(m.payload)) as? [String: Any])
    }

    func number(_ v: Any?) -> Double? { (v as? NSNumber)?.doubleValue }
    func numbers(_ v: Any?) -> [Double]? { (v as? [Any])?.compactMap(number) }

    /// Asks on `query/recordings` with `reply_to: <topic>` and returns the answer.
    func ask(_ sub: TestSubscriber, _ request: String, replyTo topic: String) throws -> [String: Any] {
        let before = sub.messages(on: topic).count
        try sub.client.publish(topic: "edgemotion/r/query/recordings", string: request, qos: 1)
        let replies = sub.waitFor(count: before + 1, topic: topic, timeout: .seconds(5))
        return try json(try #require(replies.dropFirst(before).first, "no answer to \(request)"))
    }

    @Test func filesModeSummarisesEachFileOverlappingTheRange() throws {
        let (state, store) = try record()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let broker = try MosquittoBroker.start()
        let agent = try responder(broker, .recordings(RecordingCatalog(store: store)))
        defer { agent.disconnect(timeout: .seconds(1)) }
        let sub = try TestSubscriber(url: broker.url, patterns: ["dash/#"])

        // 00:00:00.5 … 00:00:01.5 touches the first two files only; mode defaults to files.
        let body = try ask(sub, #"{"from":"2025-11-30T00:00:00.500Z","to":\#(Self.t0 + 1.5),"id":"f1","reply_to":"dash/f"}"#, replyTo: "dash/f")
        #expect(body["id"] as? String == "f1" && body["query"] as? String == "recordings" && body["mode"] as? String == "files")
        #expect(body["next_page"] is NSNull)
        let items = try #require(body["items"] as? [[String: Any]])
        let files = store.list()
        #expect(items.map { $0["name"] as? String } == files.prefix(2).map(\.name))
        #expect(items.map { $0["samples"] as? Int } == [200, 200])
        let first = try #require(items.first)
        #expect(abs((number(first["start_utc"]) ?? 0) - Self.t0) < 1e-6)
        #expect(abs((number(first["end_utc"]) ?? 0) - (Self.t0 + 0.995)) < 1e-6)
        #expect(abs((number(items[1]["start_utc"]) ?? 0) - (Self.t0 + 1.0)) < 1e-6)
        #expect(number(first["rate_hz"]) == 200)
        #expect(abs((number(first["measured_rate_hz"]) ?? 0) - 200) < 1e-3)
        #expect(first["bytes"] as? Int == files[0].bytes)
        #expect(first["sensors"] as? [String] == ["accelerometer", "gyroscope", "magnetometer"])
        #expect(first["torn_tail"] as? Bool == false && first["being_written"] as? Bool == false)

        // Paged by file: the whole day, one file per page.
        let page2 = try ask(sub, #"{"from":\#(Self.t0 - 10),"page":2,"to":\#(Self.t0 + 3600),"page_size":1,"reply_to":"dash/f"}"#, replyTo: "dash/f")
        #expect((page2["items"] as? [[String: Any]])?.map { $0["samples"] as? Int } == [100])
        #expect(page2["next_page"] is NSNull)
        let page0 = try ask(sub, #"{"from":\#(Self.t0 - 10),"to":\#(Self.t0 + 3600),"page_size":1,"reply_to":"dash/f"}"#, replyTo: "dash/f")
        #expect(page0["next_page"] as? Int == 1)
    }

    @Test func samplesModePagesAcrossFilesWithExactCountsAndContinuityOnTheMQTT5ResponseTopic() throws {
        let (state, store) = try record()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let broker = try MosquittoBroker.start()
        let agent = try responder(broker, .recordings(RecordingCatalog(store: store)), protocolVersion: .v5)
        defer { agent.disconnect(timeout: .seconds(1)) }
        var options = MQTTConnectionOptions(address: try MQTTBrokerAddress(url: broker.url), clientID: "dash5-\(UUID().uuidString.prefix(8))")
        options.protocolVersion = .v5
        let requester = try MQTTClient(options: options)
        let replies = Replies()
        requester.onMessage = { m in replies.add(m) }
        try requester.subscribe("dash5/replies", qos: 1)
        try requester.start()
        defer { requester.disconnect(timeout: .seconds(1)) }
        #expect(requester.waitUntilConnected(timeout: .seconds(5)))
        let subscribed = Date().addingTimeInterval(5)
        while requester.statistics.subscriptionsAcknowledged < 1, Date() < subscribed { usleep(5_000) }

        // [t0+0.25, t0+2.0): samples 50…399, spread over the first two files; 300 per page.
        var pages: [[String: Any]] = []
        for page in 0..<2 {
            try requester.publishRequest(topic: "edgemotion/r/query/recordings",
                                         payload: Array(#"{"from":\#(Self.t0 + 0.25),"to":"2025-11-30T00:00:02Z","mode":"samples","page":\#(page),"page_size":300}"#.utf8),
                                         responseTopic: "dash5/replies", correlationData: [7, UInt8(page)])
            let reply = try #require(replies.wait(count: page + 1).dropFirst(page).first, "no answer to page \(page)")
            #expect(reply.correlationData == [7, UInt8(page)])
            pages.append(try json(reply))
        }
        #expect(pages[0]["next_page"] as? Int == 1)
        #expect(pages[1]["next_page"] is NSNull)
        let units = try #require(pages[0]["units"] as? [String: Any])
        #expect((units["acceleration"] as? String)?.hasPrefix("g") == true && pages[0]["frame"] as? String == "sensor")
        let first = try #require(pages[0]["items"] as? [[String: Any]])
        let second = try #require(pages[1]["items"] as? [[String: Any]])
        #expect(first.count == 300 && second.count == 50)
        let all = first + second
        #expect(all.compactMap { $0["seq"] as? Int } == Array(50..<400), "every sample once, in order, across the file boundary")
        let times = all.compactMap { $0["t_utc_us"] as? Int }
        #expect(times.first == Int(Self.t0) * 1_000_000 + 250_000)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 == 5000 }, "200 Hz without gaps")
        let s = try #require(all.last)
        #expect(numbers(s["acceleration"]) == [0, 0, -1], "9.80665 m/s² up is -1 g in Core Motion's sign")
        #expect(numbers(s["rotation_rate"]) == [0.25, -0.5, 0.399])
        #expect(numbers(s["magnetic_field"]) == [20.5, -3.25, -40.125])
        #expect(s["t_mono_ns"] as? Int == Int(Self.monotonicStart) + 399 * 5_000_000)
    }

    @Test func aLaterPageSkipsWholeFilesAndStartsWhereThePreviousEnded() throws {
        let (state, store) = try record()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let catalog = RecordingCatalog(store: store)
        let from = Int64(Self.t0 * 1e9), to = from + 10_000_000_000
        let a = catalog.samples(fromUTCNanos: from, toUTCNanos: to, skip: 0, limit: 250)
        let b = catalog.samples(fromUTCNanos: from, toUTCNanos: to, skip: 250, limit: 250)
        let c = catalog.samples(fromUTCNanos: from, toUTCNanos: to, skip: 500, limit: 250)
        #expect(a.samples.map(\.sample.sequence) == Array(0..<250) && a.more)
        #expect(b.samples.map(\.sample.sequence) == Array(250..<500) && !b.more)
        #expect(c.samples.isEmpty && !c.more)
    }

    @Test func badRequestsGetAnErrorReplyNamingTheField() throws {
        let (state, store) = try record()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let broker = try MosquittoBroker.start()
        let agent = try responder(broker, .recordings(RecordingCatalog(store: store)))
        defer { agent.disconnect(timeout: .seconds(1)) }
        let sub = try TestSubscriber(url: broker.url, patterns: ["dash/#"])
        let cases: [(String, String, String)] = [
            (#"{"from":1764460800,"to":1764464400,"mode":"frames"}"#, "mode", "samples"),
            (#"{"from":1764460800,"to":1764464400,"mode":"samples","page_size":1001}"#, "page_size", "1000"),
            (#"{"from":1764460800,"to":1764464400,"page":-1}"#, "page", "0"),
            (#"{"from":1764460800,"to":1764464400,"page":1e300}"#, "page", "0"),
            (#"{"from":1764460800,"to":1764464400,"page":true}"#, "page", "0"),
            (#"{"from":1764460800,"to":1764464400,"page_size":2.5}"#, "page_size", "1000"),
            (#"{"to":1764464400}"#, "from", "required"),
            (#"{"from":"noon","to":1764464400}"#, "from", "ISO 8601"),
            (#"{"from":true,"to":1764464400}"#, "from", "ISO 8601"),
            (#"{"from":1764460800,"to":1764400000}"#, "to", "after"),
            (#"{"from":1764460800,"to":1764464400,"colour":"red"}"#, "colour", "unknown"),
        ]
        for (i, (request, field, hint)) in cases.enumerated() {
            let withReply = String(request.dropLast()) + #","id":"e\#(i)","reply_to":"dash/e"}"#
            let body = try ask(sub, withReply, replyTo: "dash/e")
            let error = try #require(body["error"] as? [String: Any], "\(request): \(body)")
            #expect(error["field"] as? String == field, "\(request)")
            #expect((error["message"] as? String)?.contains(hint) == true, "\(request): \(error)")
            #expect(body["id"] as? String == "e\(i)" && body["query"] as? String == "recordings")
        }
        // Not JSON, no reply_to: answered on <topic>/response.
        let fallback = try TestSubscriber(url: broker.url, patterns: ["edgemotion/r/query/recordings/response"])
        try fallback.client.publish(topic: "edgemotion/r/query/recordings", string: "{\"from\":", qos: 1)
        let reply = try #require(fallback.waitFor(count: 1, topic: "edgemotion/r/query/recordings/response").first)
        #expect((try json(reply)["error"] as? [String: Any])?["field"] as? String == "payload")
    }

    @Test func aQueryWhileTheRecorderIsOffGetsAnErrorSayingHowToTurnItOn() throws {
        let broker = try MosquittoBroker.start()
        let agent = try responder(broker, HistoryQueryResponder.Source())
        defer { agent.disconnect(timeout: .seconds(1)) }
        let sub = try TestSubscriber(url: broker.url, patterns: ["dash/#"])
        let body = try ask(sub, #"{"from":1764460800,"to":1764464400,"mode":"samples","reply_to":"dash/off"}"#, replyTo: "dash/off")
        let error = try #require(body["error"] as? [String: Any])
        #expect(error["field"] as? String == "recorder")
        #expect((error["message"] as? String)?.contains("recorder.enabled: true") == true, "\(error)")
    }

    @Test func theRunningAgentAnswersFromTheFilesItIsRecording() throws {
        let broker = try MosquittoBroker.start()
        let state = NSTemporaryDirectory() + "edgemotion-recq-agent-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let config = try AgentProcess.writeConfig("""
        device: { id: recq }
        streams: { accelerometer: { rate: 0 }, gyroscope: { enabled: false }, magnetometer: { enabled: false }, motion: { enabled: false } }
        activity: { enabled: false }
        recorder: { enabled: true }
        state_directory: \(state)
        """)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let sub = try TestSubscriber(url: broker.url, patterns: ["dash/#", "edgemotion/recq/status"])
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        defer { agent.signal(SIGTERM); _ = agent.waitForExit(timeout: 10) }
        _ = sub.waitFor(count: 1, topic: "edgemotion/recq/status", timeout: .seconds(10))
        let from = Date().timeIntervalSince1970 - 60
        // Ask until the first block (1 s at 200 Hz) is in the file being written.
        var files: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            let before = sub.messages(on: "dash/a").count
            try sub.client.publish(topic: "edgemotion/recq/query/recordings", string: #"{"from":\#(from),"reply_to":"dash/a"}"#, qos: 1)
            let replies = sub.waitFor(count: before + 1, topic: "dash/a", timeout: .seconds(1))
            if let last = replies.dropFirst(before).first, let body = try? json(last) {
                files = body["items"] as? [[String: Any]] ?? []
                if files.first.map({ ($0["samples"] as? Int ?? 0) >= 200 }) == true { break }
            }
            usleep(200_000)
        }
        let file = try #require(files.first, "no recording listed; agent log:\n\(agent.log.suffix(2000))")
        #expect(file["being_written"] as? Bool == true && file["torn_tail"] as? Bool == false)
        #expect(number(file["rate_hz"]) == 200)

        try sub.client.publish(topic: "edgemotion/recq/query/recordings",
                               string: #"{"from":\#(from),"mode":"samples","page_size":10,"reply_to":"dash/s"}"#, qos: 1)
        let samples = try json(try #require(sub.waitFor(count: 1, topic: "dash/s").first))
        let items = try #require(samples["items"] as? [[String: Any]], "\(samples)")
        #expect(items.count == 10 && samples["next_page"] as? Int == 1)
        let seqs = items.compactMap { $0["seq"] as? Int }
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 + 1 })
        #expect(items.allSatisfy { numbers($0["acceleration"])?.count == 3 })

        // Activity is off here: its query says so instead of going unanswered.
        try sub.client.publish(topic: "edgemotion/recq/query/activity", string: #"{"from":\#(from),"reply_to":"dash/act"}"#, qos: 1)
        let activity = try json(try #require(sub.waitFor(count: 1, topic: "dash/act").first))
        #expect((activity["error"] as? [String: Any])?["field"] as? String == "activity")
    }
}
