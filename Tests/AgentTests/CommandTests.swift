import Foundation
import Testing
@testable import Agent
import TestSupport

@Suite("Run-time commands", .ownThread)
struct CommandTests {
    func parse(_ s: String) -> Result<StreamCommand, StreamCommand.Failure> { StreamCommand.parse(Array(s.utf8)) }

    @Test func aValidCommandIsParsedWithEveryField() throws {
        let c = try parse(#"{"id":"r1","stream":"gyroscope","enabled":true,"rate":50,"publish_rate":5}"#).get()
        #expect(c == StreamCommand(id: "r1", stream: "gyroscope", enabled: true, rate: 50, publishRate: 5))
    }

    @Test(arguments: [
        ("", "empty payload"),
        ("{", "invalid JSON"),
        ("[1,2]", "expected a JSON object, found an array"),
        (#"{"stream":"accelerometer"}"#, "nothing to change"),
        (#"{"enabled":false}"#, "'stream' is required"),
        (#"{"stream":"barometer","enabled":false}"#, "'stream' must be one of"),
        (#"{"stream":"motion","enabled":"yes"}"#, "'enabled' must be true or false"),
        (#"{"stream":"motion","rate":-1}"#, "'rate' must be a number"),
        (#"{"stream":"motion","rate":1e400}"#, "'rate' must be a number"),
        (#"{"stream":"motion","publish_rate":0}"#, "'publish_rate' must be"),
        (#"{"stream":"motion","enabled":true,"colour":1}"#, "unknown key 'colour'"),
        (#"{"stream":"motion","stream":"motion","enabled":true}"#, "appears twice"),
        (#"{"id":5,"stream":"motion","enabled":true}"#, "id must be a text"),
        (#"{"stream":"motion","enabled":true} x"#, "unexpected data after the value"),
    ])
    func malformedCommandsAreRefusedWithAClearMessage(payload: String, message: String) {
        guard case .failure(let f) = parse(payload) else {
            Issue.record("accepted: \(payload)")
            return
        }
        #expect(f.message.contains(message), "\(payload) → \(f.message)")
    }

    @Test func deeplyNestedOrHugePayloadsAreRefusedWithoutCrashing() {
        let deep = String(repeating: "[", count: 10_000)
        #expect((try? parse(deep).get()) == nil)
        let huge = "{\"stream\":\"" + String(repeating: "a", count: 10_000) + "\"}"
        guard case .failure(let f) = parse(huge) else { Issue.record("accepted"); return }
        #expect(f.message.contains("at most"))
    }

    @Test func ratesAreCheckedAgainstTheSource() {
        let current = StreamSettings(enabled: true, rate: 100, publishRate: 10)
        let tooFast = StreamCommand(stream: "accelerometer", rate: 400)
        #expect((try? tooFast.applied(to: current, sourceRate: 200).get()) == nil)
        let tooManyMessages = StreamCommand(stream: "accelerometer", rate: 5)
        #expect((try? tooManyMessages.applied(to: current, sourceRate: 200).get()) == nil)
        let ok = StreamCommand(stream: "accelerometer", rate: 50, publishRate: 5)
        #expect((try? ok.applied(to: current, sourceRate: 200).get())?.rate == 50)
    }

    @Test func jsonReaderHandlesEscapesAndNumbers() throws {
        let v = try JSONValue.parse(Array(#" {"a":"x\u00e9\ud83d\ude00\n","b":[-1.5e2,0,true,null]} "#.utf8))
        #expect(v == .object([("a", .string("xé😀\n")), ("b", .array([.number(-150), .number(0), .bool(true), .null]))]))
        #expect((try? JSONValue.parse(Array("01".utf8))) == nil)
        #expect((try? JSONValue.parse(Array(#""\ud800""#.utf8))) == nil)
    }
}

@Suite("Run-time commands end to end", .serialized, .ownThread)
struct CommandEndToEndTests {
    @Test func streamCommandsAreValidatedAppliedAndAnswered() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/cmd/#"])
        let dir = try Reliability.tempDirectory("cmd")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try AgentProcess.writeConfig(Reliability.config(id: "cmd", stateDirectory: dir, extra: "control: { enabled: true }")
            .replacingOccurrences(of: "device: { id: cmd }", with: "device: { id: cmd }\nmqtt: { topic_prefix: edgemotion/cmd }"))
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        usleep(2_500_000)
        let pub = try TestSubscriber(url: broker.url, patterns: ["unused/x"])
        try pub.client.publish(topic: "edgemotion/cmd/cmd/stream", string: #"{"id":"a","stream":"accelerometer","enabled":false}"#, qos: 1)
        try pub.client.publish(topic: "edgemotion/cmd/cmd/stream", string: "this is not json", qos: 1)
        try pub.client.publish(topic: "edgemotion/cmd/cmd/stream", string: #"{"id":"c","stream":"motion","rate":5000}"#, qos: 1)
        try pub.client.publish(topic: "edgemotion/cmd/cmd/reboot", string: "{}", qos: 1)
        let results = sub.waitFor(count: 3, topic: "edgemotion/cmd/cmd/stream/result", timeout: .seconds(8))
        let json = results.compactMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }
        #expect(json.count == 3, "log:\n\(agent.log)")
        #expect(json.first { $0["id"] as? String == "a" }?["ok"] as? Bool == true)
        #expect(json.contains { $0["ok"] as? Bool == false && ($0["error"] as? String ?? "").contains("invalid JSON") })
        #expect(json.first { $0["id"] as? String == "c" }?["ok"] as? Bool == false)
        let unknown = sub.waitFor(count: 1, topic: "edgemotion/cmd/cmd/reboot/result").first?.payloadString ?? ""
        #expect(unknown.contains("unknown command"))
        // The accelerometer stream stopped; motion goes on.
        usleep(1_000_000)
        let accBefore = sub.messages(on: "edgemotion/cmd/sensor/accelerometer").count
        let motionBefore = sub.messages(on: "edgemotion/cmd/motion").count
        usleep(2_000_000)
        #expect(sub.messages(on: "edgemotion/cmd/sensor/accelerometer").count == accBefore)
        #expect(sub.messages(on: "edgemotion/cmd/motion").count >= motionBefore + 10)
        #expect(agent.isRunning)
        #expect(agent.log.contains("command applied"), "log:\n\(agent.log)")
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0)
    }
}
