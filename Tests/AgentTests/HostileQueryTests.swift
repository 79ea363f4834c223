import Foundation
import Testing
import Messaging
import TestSupport
@testable import Agent

/// Issue 14 items 11, 12 and 16 (refused queries logged rate-limited): what a requester may make
/// the agent do with a query — how much it parses and echoes, and where it publishes the answer.
@Suite("Hostile input: query payloads and reply topics", .ownThread)
struct HostileQueryTests {
    let policy = ReplyTopicPolicy(prefix: "edgemotion/dev-1")

    @Test(arguments: ["clients/dash-1/replies", "dash/a", "edgemotion/dev-1/replies/dash-1",
                      "edgemotion/dev-1/query/activity/response", "edgemotion/dev-1/query/latest/response",
                      "edgemotion/dev-2/replies/x/y"])
    func replyTopicsOutsideTheDeviceTreesOrOnAReplyLevelAreAllowed(topic: String) {
        #expect(policy.problem(topic) == nil, "\(topic)")
    }

    @Test(arguments: [
        ("edgemotion/dev-1/status", "device tree edgemotion/dev-1/"),
        ("edgemotion/dev-1/events/activity", "device tree"),
        ("edgemotion/dev-1/query/activity", "device tree"),          // its own request topic: a loop
        ("edgemotion/dev-1/cmd/stream", "device tree"),
        ("edgemotion/dev-2/cmd/stream", "device tree edgemotion/+/"),  // another device's command topic
        ("edgemotion/dev-1", "device tree"),
        ("edgemotion/dev-1/replies", "device tree"),                  // the replies level needs a topic under it
        ("clients/a\u{0}edgemotion/dev-1/status", "NUL"),
        ("clients/+/x", "wildcard"),
        ("#", "wildcard"),
        ("$SYS/broker/x", "reserved"),
        ("", "empty"),
        (String(repeating: "a", count: 600), "longer than 512"),
    ])
    func replyTopicsInsideADeviceTreeOrMalformedAreRefused(topic: String, reason: String) {
        let problem = policy.problem(topic)
        #expect(problem?.contains(reason) == true, "\(topic.prefix(40)): \(problem ?? "allowed")")
    }

    @Test func theTopicPrefixTemplateProtectsEveryDeviceOfTheSameLayout() {
        let site = ReplyTopicPolicy(prefix: "site/d1/imu", template: "site/{device_id}/imu")
        #expect(site.problem("site/d2/imu/cmd/stream")?.contains("site/+/imu/") == true)
        #expect(site.problem("site/d1/imu/status") != nil)
        #expect(site.problem("edgemotion/d3/cmd/stream") != nil, "the default layout stays protected")
        #expect(site.problem("site/d1/imu/replies/x") == nil)
        #expect(site.problem("site/d1/other") == nil, "outside the device's tree")
    }

    @Test func anAllowedPrefixRestrictsEverythingButTheAgentsOwnReplyLevels() {
        let strict = ReplyTopicPolicy(prefix: "edgemotion/dev-1", allowedPrefix: "clients/")
        #expect(strict.problem("clients/dash/replies") == nil)
        #expect(strict.problem("other/x")?.contains("control.reply_topic_prefix") == true)
        #expect(strict.problem("edgemotion/dev-1/query/pedometer/response") == nil, "the default answer topic")
        #expect(strict.problem("edgemotion/dev-2/replies/x") != nil, "another device's replies are outside the prefix")
    }

    @Test func anOversizedQueryIsRefusedUnparsedAndALongIdIsNotEchoed() {
        let big = Array(("{\"from\":0,\"id\":\"" + String(repeating: "x", count: 10_000) + "\"}").utf8)
        guard case .failure(let p) = HistoryQuery.parse(kind: .activity, payload: big, now: 1e9) else {
            Issue.record("a 10 kB query was accepted")
            return
        }
        #expect(p.field == "payload" && p.message.contains("at most 4096"), "\(p)")
        #expect(HistoryQuery.envelope(big).id == nil && HistoryQuery.envelope(big).replyTo == nil)
        let longID = Array(("{\"from\":0,\"id\":\"" + String(repeating: "x", count: 129) + "\"}").utf8)
        guard case .failure(let q) = HistoryQuery.parse(kind: .pedometer, payload: longID, now: 1e9) else {
            Issue.record("a 129-byte id was accepted")
            return
        }
        #expect(q.field == "id" && q.message.contains("at most 128"))
        #expect(HistoryQuery.envelope(longID).id == nil, "never echoed")
        let fits = Array(("{\"from\":0,\"to\":1,\"id\":\"" + String(repeating: "x", count: 128) + "\"}").utf8)
        #expect((try? HistoryQuery.parse(kind: .activity, payload: fits, now: 1e9).get())?.id?.count == 128)
    }

    @Test func theReplyTopicPrefixKeyIsChecked() {
        #expect(ConfigTestSupport.problems("control: { reply_topic_prefix: clients/ }\n") == [])
        let problems = ConfigTestSupport.problems("control: { reply_topic_prefix: \"clients/+/\" }\n")
        #expect(problems.contains { $0.contains("control.reply_topic_prefix") && $0.contains("wildcards") }, "\(problems)")
    }
}

/// The same rules in the running agent: refused reply topics get no answer at all and are logged
/// once per topic; oversized queries cost a short error; refused queries are logged rate-limited.
@Suite("Hostile input: queries end to end", .serialized, .ownThread)
struct HostileQueryEndToEndTests {
    @Test func theAgentAnswersOnlyOnAllowedReplyTopics() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/#", "clients/#"])
        let dir = try Reliability.tempDirectory("reply-to")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try AgentProcess.writeConfig(Reliability.config(id: "rq", stateDirectory: dir, extra: "mqtt: { protocol: \"5\" }"))
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        defer { agent.signal(SIGTERM); _ = agent.waitForExit(timeout: 10) }
        #expect(sub.waitFor(count: 2, topic: "edgemotion/rq/motion", timeout: .seconds(15)).count >= 2, "log:\n\(agent.log)")
        let query = "edgemotion/rq/query/activity"
        func ask(replyTo: String) throws {
            try sub.client.publish(topic: query, string: #"{"from":0,"to":1,"reply_to":"\#(replyTo)"}"#, qos: 1)
        }
        let statusBefore = sub.messages(on: "edgemotion/rq/status").count
        for _ in 0..<3 { try ask(replyTo: "edgemotion/rq/status") }
        try ask(replyTo: "edgemotion/rq/events/activity")
        try ask(replyTo: "edgemotion/other/cmd/stream")
        try ask(replyTo: "edgemotion/rq/query/activity")
        try ask(replyTo: #"clients/a\u0000edgemotion/rq/status"#)
        // MQTT 5: the response-topic property is held to the same rules.
        var options = MQTTConnectionOptions(address: try MQTTBrokerAddress(url: broker.url), clientID: "req5")
        options.protocolVersion = .v5
        let requester = try MQTTClient(options: options)
        try requester.start()
        defer { requester.disconnect(timeout: .seconds(1)) }
        #expect(requester.waitUntilConnected(timeout: .seconds(5)))
        try requester.publishRequest(topic: query, payload: Array(#"{"from":0,"to":1}"#.utf8),
                                     responseTopic: "edgemotion/rq/cmd/stream", correlationData: [7])
        // Then the allowed ones, which must be answered.
        try ask(replyTo: "clients/dash/replies")
        try ask(replyTo: "edgemotion/rq/replies/dash")
        #expect(sub.waitFor(count: 1, topic: "clients/dash/replies", timeout: .seconds(8)).count == 1, "log:\n\(agent.log)")
        #expect(sub.waitFor(count: 1, topic: "edgemotion/rq/replies/dash", timeout: .seconds(8)).count == 1)
        usleep(500_000)
        #expect(sub.messages(on: "edgemotion/rq/status").count == statusBefore, "nothing published on status")
        #expect(sub.messages(on: "edgemotion/rq/events/activity").isEmpty)
        #expect(sub.messages(on: "edgemotion/other/cmd/stream").isEmpty)
        #expect(sub.messages(on: "edgemotion/rq/cmd/stream").isEmpty)
        #expect(sub.messages(on: query).count == 7 + 1 + 2, "only the requests themselves on the query topic")
        #expect(sub.messages.filter { $0.topic.hasPrefix("clients/a") }.isEmpty, "the NUL topic, whole or cut")
        #expect(agent.isRunning)
        let refusals = agent.log.split(separator: "\n").filter { $0.contains("reply topic refused") }
        #expect(refusals.count == 6, "once per refused reply topic (status three times, logged once): \(refusals)")
    }

    @Test func oversizedQueriesGetAShortErrorAndRefusalsAreLoggedRateLimited() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/big/query/#", "clients/#"])
        let dir = try Reliability.tempDirectory("big-query")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try AgentProcess.writeConfig(Reliability.config(id: "big", stateDirectory: dir))
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        defer { agent.signal(SIGTERM); _ = agent.waitForExit(timeout: 10) }
        usleep(2_500_000)
        // 1 MB with a 1 MB id: refused unparsed, answered on the default topic without the id.
        let id = String(repeating: "i", count: 1 << 20)
        try sub.client.publish(topic: "edgemotion/big/query/activity", string: #"{"from":0,"id":"\#(id)","reply_to":"clients/x"}"#, qos: 1)
        let reply = try #require(sub.waitFor(count: 1, topic: "edgemotion/big/query/activity/response", timeout: .seconds(10)).first,
                                 "log:\n\(agent.log.suffix(2000))")
        #expect(reply.payload.count < 512, "\(reply.payload.count) bytes")
        #expect(reply.payloadString.contains("at most 4096") && !reply.payloadString.contains("iiii"), "\(reply.payloadString)")
        // 200 refused queries in a burst: answered each, logged at most a few lines.
        for _ in 0..<200 {
            try sub.client.publish(topic: "edgemotion/big/query/pedometer", string: #"{"to":1,"reply_to":"clients/r"}"#, qos: 1)
        }
        #expect(sub.waitFor(count: 200, topic: "clients/r", timeout: .seconds(20)).count == 200)
        let lines = agent.log.split(separator: "\n").filter { $0.contains("refused history query") }
        #expect(lines.count >= 1 && lines.count <= 3, "\(lines.count) lines for 201 refusals")
        #expect(agent.isRunning)
    }
}
