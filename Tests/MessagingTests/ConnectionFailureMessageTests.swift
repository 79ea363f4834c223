import Foundation
import Testing
@testable import Messaging
import TestSupport

/// What a user reads when the broker is reached but the connection is refused: a wrong password
/// (a real mosquitto with a password file) and an MQTT 5 client against a 3.1.1-only broker.
@Suite(.serialized, .ownThread) struct ConnectionFailureMessageTests {
    /// A mosquitto that knows one user, `edge` / `right-password` (file made by mosquitto_passwd).
    static func passwordBroker() throws -> (MosquittoBroker, String) {
        let dir = NSTemporaryDirectory() + "edgemotion-passwd-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let file = dir + "/passwd"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_passwd")
        p.arguments = ["-c", "-b", file, "edge", "right-password"]
        try p.run()
        p.waitUntilExit()
        let broker = try MosquittoBroker.start(extraConfig: "allow_anonymous false\npassword_file \(file)")
        return (broker, dir)
    }

    static let passwdAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_passwd")

    @Test(.enabled(if: passwdAvailable), arguments: [MQTTProtocolVersion.v311, .v5])
    func aWrongPasswordSaysBadUserNameOrPassword(version: MQTTProtocolVersion) throws {
        let (broker, dir) = try Self.passwordBroker()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recorder = StateRecorder()
        var options = MQTTConnectionOptions(address: try MQTTBrokerAddress(url: broker.url), clientID: "wrong-password",
                                            username: "edge", password: "wrong-password", protocolVersion: version,
                                            reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(100), maxDelay: .milliseconds(300)))
        let client = try MQTTClient(options: options)
        client.onConnectionChange = { recorder.record($0) }
        try client.start()
        #expect(eventually { !recorder.failures.isEmpty })
        client.disconnect(timeout: .seconds(1))
        let failure = try #require(recorder.failures.first)
        #expect(failure.isBrokerRefusal)
        #expect(failure.description.contains("bad user name or password"), "got \(failure)")
        #expect(!failure.description.contains("anonymous"), "got \(failure)")
        #expect(client.lastFailure == failure)

        // The right password connects: the broker and the file are as described.
        options.password = "right-password"
        options.clientID = "right-password"
        let good = try MQTTClient(options: options)
        try good.start()
        #expect(good.waitUntilConnected(timeout: .seconds(5)))
        good.disconnect(timeout: .seconds(1))
    }

    /// Without credentials the same refusal keeps its own explanation (anonymous access).
    @Test func anAnonymousRefusalStillSaysNotAuthorised() throws {
        let broker = try MosquittoBroker.start(extraConfig: "allow_anonymous false")
        let recorder = StateRecorder()
        let client = try makeClient(broker.url, id: "anonymous-refused", recorder: recorder)
        try client.start()
        #expect(eventually { !recorder.failures.isEmpty })
        client.disconnect(timeout: .seconds(1))
        let failure = try #require(recorder.failures.first)
        #expect(failure.kind == .brokerRefused(code: 5))
        #expect(failure.description.contains("not authorised"))
    }

    /// Whether the 3.1.1-only peer answers CONNACK 1 or just hangs up, the hint names the setting.
    @Test(arguments: [true, false])
    func anMQTT5ClientAgainstA311OnlyBrokerIsToldToSetTheProtocol(answers: Bool) throws {
        let listener = try MQTT311OnlyListener(answersUnknownVersions: answers)
        defer { listener.stop() }
        let recorder = StateRecorder()
        let client = try makeClient(listener.url, id: "v5-vs-311", protocolVersion: .v5, recorder: recorder)
        try client.start()
        #expect(eventually { !recorder.failures.isEmpty })
        client.disconnect(timeout: .seconds(1))
        #expect(listener.protocolLevelsSeen.first == 5, "the client sent an MQTT 5 CONNECT")
        let failure = try #require(recorder.failures.first)
        #expect(failure.description.contains("mqtt.protocol: \"3.1.1\""), "got \(failure)")
        #expect(!failure.description.contains("is the broker reachable"), "got \(failure)")

        // The same listener accepts a 3.1.1 client: the hint was right.
        let v311 = try makeClient(listener.url, id: "v311-ok", protocolVersion: .v311)
        try v311.start()
        #expect(v311.waitUntilConnected(timeout: .seconds(5)))
        v311.disconnect(timeout: .seconds(1))
    }
}
