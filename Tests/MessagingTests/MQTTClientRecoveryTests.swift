import Foundation
import Synchronization
import Testing
@testable import Messaging
import TestSupport

/// Errors after which libmosquitto's own `loop_forever` / `loop_start` thread gives up for good
/// (MOSQ_ERR_PROTOCOL, MOSQ_ERR_EAI, …): our network thread must keep retrying.
@Suite(.serialized, .ownThread) struct MQTTClientFatalErrorTests {
    @Test func keepsRetryingAfterAnMQTT5RefusalAndConnectsOnceTheBrokerAllowsIt() throws {
        // MQTT 5 CONNACK 135 "not authorised" makes mosquitto_loop return MOSQ_ERR_PROTOCOL,
        // which is fatal for libmosquitto's loop_forever.
        let strict = try MosquittoBroker.start(extraConfig: "allow_anonymous false")
        let port = strict.port
        let recorder = StateRecorder()
        let client = try makeClient(strict.url, id: "fatal-then-ok", protocolVersion: .v5,
                                    initialDelay: .milliseconds(100), maxDelay: .milliseconds(300), recorder: recorder)
        try client.start()
        #expect(eventually { recorder.failures.count >= 2 }, "states: \(recorder.all)")
        let refusal = try #require(recorder.failures.first)
        #expect(refusal.kind == .brokerRefused(code: 135), "got \(refusal)")
        #expect(refusal.description.contains("not authorised"))

        strict.stop()
        let open = try MosquittoBroker.start(port: port)
        #expect(client.waitUntilConnected(timeout: .seconds(5)), "states: \(recorder.all)\nbroker log:\n\(open.log())")
        client.disconnect(timeout: .seconds(1))
    }

    @Test func keepsRetryingAfterAHostLookupFailure() throws {
        let recorder = StateRecorder()
        let client = try makeClient("mqtt://no-such-host.invalid:1883", id: "dns",
                                    initialDelay: .milliseconds(100), maxDelay: .milliseconds(200), recorder: recorder)
        try client.start()
        #expect(eventually(timeout: 10) { client.statistics.connectAttempts >= 3 })
        client.disconnect(timeout: .seconds(1))
        let failure = try #require(recorder.failures.first)
        #expect(failure.kind == .hostLookup, "got \(failure)")
        #expect(failure.context.contains("no-such-host.invalid"))
    }

    @Test func mqtt5BrokerWithoutRetainIsDetected() throws {
        let broker = try MosquittoBroker.start(extraConfig: "retain_available false")
        let client = try makeClient(broker.url, id: "no-retain", protocolVersion: .v5)
        try client.start()
        #expect(client.waitUntilConnected(timeout: .seconds(5)))
        #expect(!client.brokerAcceptsRetain)
        // libmosquitto clears the flag silently: the message goes out, but is not stored.
        try client.publish(topic: "nr/status", string: "online", qos: 1, retain: true)
        #expect(eventually { client.statistics.outstanding == 0 && client.statistics.acknowledged >= 1 })
        let late = try TestSubscriber(url: broker.url, patterns: ["nr/#"])
        usleep(300_000)
        #expect(late.messages.isEmpty)
        client.disconnect(timeout: .seconds(1))

        let normal = try MosquittoBroker.start()
        let control = try makeClient(normal.url, id: "retain-ok", protocolVersion: .v5)
        try control.start()
        #expect(control.waitUntilConnected(timeout: .seconds(5)))
        #expect(control.brokerAcceptsRetain)
        control.disconnect(timeout: .seconds(1))
    }
}

@Suite(.serialized, .ownThread) struct MQTTClientKeepaliveTests {
    @Test func frozenBrokerIsDetectedByKeepaliveAndTheClientRecoversWhenItThaws() throws {
        let broker = try MosquittoBroker.start()
        defer { broker.resume() }
        let recorder = StateRecorder()
        let options = MQTTConnectionOptions(
            address: try MQTTBrokerAddress(url: broker.url), clientID: "half-open", keepAlive: 5,
            reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(200), maxDelay: .seconds(1), connectTimeout: .seconds(2)))
        let client = try MQTTClient(options: options)
        client.onConnectionChange = { recorder.record($0) }
        try client.start()
        #expect(client.waitUntilConnected(timeout: .seconds(5)))

        broker.pause()   // TCP stays up, nothing is answered: a half-open connection
        // libmosquitto sends PINGREQ after 5 s idle and gives up when no PINGRESP came 5 s later.
        #expect(eventually(timeout: 15) { !recorder.losses.isEmpty }, "states: \(recorder.all)")
        #expect(!client.isConnected)
        broker.resume()
        #expect(client.waitUntilConnected(timeout: .seconds(10)), "states: \(recorder.all)")
        client.disconnect(timeout: .seconds(1))
    }
}
