import Foundation
import Testing
import EdgeMotion
import Messaging
import MotionCore
import TestSupport
@testable import Agent

/// History queries over MQTT on a real broker: MQTT 5 response topic + correlation data, the
/// 3.1.1 `reply_to` form, paging, and error replies.
@Suite("History queries over MQTT", .serialized, .ownThread)
struct HistoryQueryTests {
    let t0 = 1_764_460_800.0  // 2025-11-30T00:00:00Z

    func makeStore() throws -> ActivityHistoryStore {
        let dir = NSTemporaryDirectory() + "edgemotion-history-\(UUID().uuidString)"
        TemporaryFiles.removeAtExit(dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let store = try ActivityHistoryStore(directory: dir, retention: 400 * 86_400)
        let kinds: [ActivityClass] = [.walking, .running, .stationary]
        for (i, k) in kinds.enumerated() {
            let a = MotionActivity(primary: k, confidence: .high, startDate: t0 + Double(i) * 60, previousDuration: i == 0 ? 0 : 60)
            try store.record(a, utcStart: t0 + Double(i) * 60)
        }
        try store.record(PedometerRecord(start: t0, end: t0 + 60, steps: 110, distance: 80))
        try store.record(PedometerRecord(start: t0 + 60, end: t0 + 120, steps: 170, distance: 190))
        return store
    }

    func responder(_ broker: MosquittoBroker, protocolVersion: MQTTProtocolVersion) throws -> (MQTTClient, HistoryQueryResponder) {
        var options = MQTTConnectionOptions(address: try MQTTBrokerAddress(url: broker.url), clientID: "agent-\(UUID().uuidString.prefix(8))")
        options.protocolVersion = protocolVersion
        let client = try MQTTClient(options: options)
        let r = HistoryQueryResponder(client: client, topics: try TopicLayout(prefix: "edgemotion/h"), source: .store(try makeStore()))
        client.onMessage = { m in r.handle(m) }
        try r.subscribe()
        try client.start()
        #expect(client.waitUntilConnected(timeout: .seconds(5)))
        usleep(300_000)  // SUBACK
        return (client, r)
    }

    func json(_ m: MQTTMessage) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(m.payload)) as? [String: Any])
    }

    @Test func mqtt5RequestIsAnsweredOnItsResponseTopicWithItsCorrelationData() throws {
        let broker = try MosquittoBroker.start()
        let (agent, _) = try responder(broker, protocolVersion: .v5)
        defer { agent.disconnect(timeout: .seconds(1)) }
        var options = MQTTConnectionOptions(address: try MQTTBrokerAddress(url: broker.url), clientID: "dash5")
        options.protocolVersion = .v5
        let requester = try MQTTClient(options: options)
        let replies = Replies()
        requester.onMessage = { m in replies.add(m) }
        try requester.subscribe("dash/replies", qos: 1)
        try requester.start()
        #expect(requester.waitUntilConnected(timeout: .seconds(5)))
        usleep(300_000)
        try requester.publishRequest(topic: "edgemotion/h/query/activity",
                                     payload: Array(#"{"from":"2025-11-30T00:00:00Z","to":"2025-11-30T01:00:00Z"}"#.utf8),
                                     responseTopic: "dash/replies", correlationData: [1, 2, 3, 250])
        let reply = try #require(replies.wait(count: 1).first)
        requester.disconnect(timeout: .seconds(1))
        #expect(reply.correlationData == [1, 2, 3, 250])
        let body = try json(reply)
        let items = try #require(body["items"] as? [[String: Any]])
        #expect(items.map { $0["activity"] as? String } == ["walking", "running", "stationary"])
        #expect(items.first?["confidence"] as? String == "high")
        #expect(body["next_page"] is NSNull)
    }

    @Test func mqtt311RequestIsAnsweredOnItsReplyToTopicAndPaged() throws {
        let broker = try MosquittoBroker.start()
        let (agent, _) = try responder(broker, protocolVersion: .v311)
        defer { agent.disconnect(timeout: .seconds(1)) }
        let sub = try TestSubscriber(url: broker.url, patterns: ["dash3/#"])
        let requester = sub
        try requester.client.publish(topic: "edgemotion/h/query/activity", string: """
            {"from":\(t0),"to":\(t0 + 3600),"page":0,"page_size":2,"id":"q1","reply_to":"dash3/a"}
            """, qos: 1)
        try requester.client.publish(topic: "edgemotion/h/query/pedometer", string: """
            {"from":"2025-11-30T00:00:00Z","to":"2025-11-30T01:00:00Z","reply_to":"dash3/p"}
            """, qos: 1)
        let replies = sub.waitFor(count: 2, timeout: .seconds(5))
        let activity = try json(try #require(replies.first { $0.topic == "dash3/a" }))
        #expect(activity["id"] as? String == "q1")
        #expect((activity["items"] as? [Any])?.count == 2)
        #expect(activity["next_page"] as? Int == 1)
        let pedometer = try json(try #require(replies.first { $0.topic == "dash3/p" }))
        let totals = try #require(pedometer["totals"] as? [String: Any])
        #expect(totals["steps"] as? Int == 280)
        #expect((pedometer["items"] as? [Any])?.count == 2)
    }

    @Test(arguments: [
        (#"{"to":"2025-11-30T01:00:00Z","reply_to":"dash3/e"}"#, "from"),
        (#"{"from":"yesterday","reply_to":"dash3/e"}"#, "from"),
        (#"{"from":1764460800,"to":1764460000,"reply_to":"dash3/e"}"#, "to"),
        (#"{"from":1764460800,"to":1764464400,"page_size":0,"reply_to":"dash3/e"}"#, "page_size"),
        (#"{"from":1764460800,"colour":"red","reply_to":"dash3/e"}"#, "colour"),
    ])
    func badRequestGetsAnErrorReplyNamingTheField(request: String, field: String) throws {
        let broker = try MosquittoBroker.start()
        let (agent, _) = try responder(broker, protocolVersion: .v311)
        defer { agent.disconnect(timeout: .seconds(1)) }
        let sub = try TestSubscriber(url: broker.url, patterns: ["dash3/#", "edgemotion/h/query/activity/response"])
        try sub.client.publish(topic: "edgemotion/h/query/activity", string: request, qos: 1)
        let reply = try #require(sub.waitFor(count: 1, timeout: .seconds(5)).first)
        let error = try #require(try json(reply)["error"] as? [String: Any])
        #expect(error["field"] as? String == field)
        #expect((error["message"] as? String)?.isEmpty == false)
    }

    @Test func malformedJSONWithoutReplyToIsAnsweredOnTheResponseTopic() throws {
        let broker = try MosquittoBroker.start()
        let (agent, _) = try responder(broker, protocolVersion: .v311)
        defer { agent.disconnect(timeout: .seconds(1)) }
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/h/query/+/response"])
        try sub.client.publish(topic: "edgemotion/h/query/pedometer", string: "{not json", qos: 1)
        let reply = try #require(sub.waitFor(count: 1, timeout: .seconds(5)).first)
        #expect(reply.topic == "edgemotion/h/query/pedometer/response")
        #expect(try (json(reply)["error"] as? [String: Any])?["field"] as? String == "payload")
    }
}

/// Thread-safe collection of received messages.
final class Replies: @unchecked Sendable {
    private let lock = NSCondition()
    private var items: [MQTTMessage] = []
    func add(_ m: MQTTMessage) { lock.lock(); items.append(m); lock.broadcast(); lock.unlock() }
    func wait(count: Int, timeout: Double = 5) -> [MQTTMessage] {
        lock.lock(); defer { lock.unlock() }
        let deadline = Date().addingTimeInterval(timeout)
        while items.count < count, lock.wait(until: deadline) {}
        return items
    }
}
