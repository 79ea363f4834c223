import Foundation
import Synchronization
import Testing
@testable import Messaging
import TestSupport

/// Integration tests against a real mosquitto broker on a free loopback port.
/// Serialized: they measure timing (backoff, bounded shutdown) on a 2-core machine.
@Suite(.serialized, .ownThread) struct MQTTClientBrokerTests {
    @Test func qos0AndQos1PublishesReachASubscriberWithPayloadAndQoS() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["dev/+/data"], qos: 1)
        let client = try makeClient(broker.url, id: "pub-roundtrip")
        try client.start()
        #expect(client.waitUntilConnected(timeout: .seconds(5)))

        try client.publish(topic: "dev/a/data", string: "zero", qos: 0)
        try client.publish(topic: "dev/b/data", payload: [0, 1, 2, 255], qos: 1)
        try client.publish(topic: "other/topic", string: "not subscribed", qos: 0)

        let got = sub.waitFor(count: 2)
        #expect(got.count == 2)
        #expect(got.first { $0.topic == "dev/a/data" }?.payloadString == "zero")
        #expect(got.first { $0.topic == "dev/a/data" }?.qos == 0)
        #expect(got.first { $0.topic == "dev/b/data" }?.payload == [0, 1, 2, 255])
        #expect(got.first { $0.topic == "dev/b/data" }?.qos == 1)
        #expect(got.allSatisfy { !$0.retain })
        #expect(eventually { client.statistics.outstanding == 0 && client.statistics.acknowledged >= 3 })
        #expect(client.statistics.published == 3)
        client.disconnect(timeout: .seconds(2))
        #expect(sub.messages(on: "other/topic").isEmpty)
    }

    @Test func onPublishAcknowledgedReportsTheMessageIDOfAQoS1Publish() throws {
        let broker = try MosquittoBroker.start()
        let client = try makeClient(broker.url, id: "pub-ack")
        let acked = Mutex<[Int32]>([])
        client.onPublishAcknowledged = { mid in acked.withLock { $0.append(mid) } }
        try client.start()
        #expect(client.waitUntilConnected(timeout: .seconds(5)))
        let mid = try client.publish(topic: "ack/test", string: "x", qos: 1)
        #expect(eventually { acked.withLock { $0.contains(mid) } })
        client.disconnect(timeout: .seconds(2))
    }

    @Test func retainedMessageIsDeliveredToALateSubscriberWithTheRetainFlag() throws {
        let broker = try MosquittoBroker.start()
        let client = try makeClient(broker.url, id: "pub-retain")
        try client.start()
        #expect(client.waitUntilConnected(timeout: .seconds(5)))
        try client.publish(topic: "edgemotion/dev1/status", string: "online", qos: 1, retain: true)
        try client.publish(topic: "edgemotion/dev1/stats", string: "{}", qos: 1, retain: false)
        #expect(eventually { client.statistics.outstanding == 0 })

        let late = try TestSubscriber(url: broker.url, patterns: ["edgemotion/dev1/#"])
        let got = late.waitFor(count: 1, topic: "edgemotion/dev1/status")
        #expect(got.map(\.payloadString) == ["online"])
        #expect(got.first?.retain == true)
        // The non-retained message was published before the subscriber existed: never delivered.
        usleep(200_000)
        #expect(late.messages(on: "edgemotion/dev1/stats").isEmpty)

        // A live message to an existing subscriber arrives with retain false, even if published retained.
        try client.publish(topic: "edgemotion/dev1/status", string: "online-again", qos: 1, retain: true)
        let live = late.waitFor(count: 2, topic: "edgemotion/dev1/status")
        #expect(live.last?.payloadString == "online-again")
        #expect(live.last?.retain == false)
        client.disconnect(timeout: .seconds(2))
    }

    @Test func willIsPublishedRetainedWhenTheConnectionDiesWithoutDisconnect() throws {
        let broker = try MosquittoBroker.start()
        let status = "edgemotion/dev-will/status"
        let sub = try TestSubscriber(url: broker.url, patterns: [status])
        let client = try makeClient(broker.url, id: "will-victim",
                                    will: MQTTMessage(topic: status, string: "offline", qos: 1, retain: true),
                                    initialDelay: .seconds(5), maxDelay: .seconds(5))
        try client.start()
        #expect(client.waitUntilConnected(timeout: .seconds(5)))
        try client.publish(topic: status, string: "online", qos: 1, retain: true)
        #expect(sub.waitFor(count: 1, topic: status).map(\.payloadString) == ["online"])

        // Cut the TCP connection without DISCONNECT, as a crash or cable pull would.
        #expect(client.dropConnectionAbruptly())
        let got = sub.waitFor(count: 2, topic: status)
        #expect(got.map(\.payloadString) == ["online", "offline"])

        // And it is retained: a subscriber arriving later sees `offline`.
        let late = try TestSubscriber(url: broker.url, patterns: [status])
        let retained = late.waitFor(count: 1, topic: status)
        #expect(retained.first?.payloadString == "offline")
        #expect(retained.first?.retain == true)
        client.disconnect(timeout: .seconds(1))
    }

    @Test func cleanDisconnectDoesNotTriggerTheWill() throws {
        let broker = try MosquittoBroker.start()
        let status = "edgemotion/dev-clean/status"
        let sub = try TestSubscriber(url: broker.url, patterns: [status])
        let client = try makeClient(broker.url, id: "will-clean",
                                    will: MQTTMessage(topic: status, string: "offline", qos: 1, retain: true))
        try client.start()
        #expect(client.waitUntilConnected(timeout: .seconds(5)))
        try client.publish(topic: status, string: "online", qos: 1, retain: true)
        client.disconnect(timeout: .seconds(2))
        usleep(500_000)
        #expect(sub.messages(on: status).map(\.payloadString) == ["online"])
        #expect(broker.log().contains("will-clean"))
    }

    @Test func refusedTCPConnectionIsReportedInWordsAndRetriedWithBoundedBackoff() throws {
        let port = try MosquittoBroker.freeLoopbackPort()   // nothing listens here
        let recorder = StateRecorder()
        let client = try makeClient("mqtt://127.0.0.1:\(port)", id: "refused",
                                    initialDelay: .milliseconds(200), maxDelay: .seconds(2), recorder: recorder)
        try client.start()
        usleep(3_000_000)
        let attempts = client.statistics.connectAttempts
        client.disconnect(timeout: .seconds(1))

        // 200 ms, then ≤ 400 ms, ≤ 800 ms, ≤ 1.6 s, … with jitter floor 50 ms: a handful of attempts
        // in 3 s. A busy loop would make thousands.
        #expect(attempts >= 3, "expected retries, got \(attempts)")
        #expect(attempts <= 25, "backoff too aggressive: \(attempts) attempts in 3 s")
        #expect(!client.isConnected)
        let failure = try #require(recorder.failures.first)
        #expect(failure.kind == .system(errno: ECONNREFUSED) || failure.kind == .connectionRefused,
                "unexpected kind \(failure.kind)")
        #expect(failure.context.contains("127.0.0.1:\(port)"))
        #expect(failure.description.contains("is the broker running"), "\(failure)")
        #expect(recorder.all.last == .stopped)
    }

    @Test func clientConnectsOnItsOwnWhenTheBrokerStartsLate() throws {
        let port = try MosquittoBroker.freeLoopbackPort()
        let client = try makeClient("mqtt://127.0.0.1:\(port)", id: "late-broker",
                                    initialDelay: .milliseconds(100), maxDelay: .milliseconds(500))
        try client.start()
        usleep(700_000)
        #expect(!client.isConnected)
        let broker = try MosquittoBroker.start(port: port)
        #expect(client.waitUntilConnected(timeout: .seconds(5)), "broker log:\n\(broker.log())")
        #expect(client.statistics.connectAttempts >= 2)
        client.disconnect(timeout: .seconds(1))
    }

    @Test func brokerRefusalCarriesTheConnackCodeExplained() throws {
        // No anonymous access and no password file: mosquitto answers CONNACK 5 "not authorised".
        let broker = try MosquittoBroker.start(extraConfig: "allow_anonymous false")
        let recorder = StateRecorder()
        // The config line must also apply to the listener; mosquitto 2 needs per_listener_settings
        // false (default) for that — which is what we have.
        let client = try makeClient(broker.url, id: "refused-by-broker", recorder: recorder)
        try client.start()
        #expect(eventually { !recorder.failures.isEmpty })
        client.disconnect(timeout: .seconds(1))
        let failure = try #require(recorder.failures.first)
        #expect(failure.kind == .brokerRefused(code: 5), "got \(failure)")
        #expect(failure.description.contains("not authorised"))
    }

    @Test func clientReconnectsByItselfAfterABrokerRestartAndPublishesAgain() throws {
        let broker = try MosquittoBroker.start()
        let recorder = StateRecorder()
        let client = try makeClient(broker.url, id: "survivor", recorder: recorder)
        try client.start()
        #expect(client.waitUntilConnected(timeout: .seconds(5)))
        try client.publish(topic: "restart/test", string: "before", qos: 1)

        try broker.restart()
        #expect(eventually(timeout: 10) { client.statistics.reconnects >= 1 && client.isConnected },
                "states: \(recorder.all)")
        #expect(!recorder.losses.isEmpty, "the loss must be reported: \(recorder.all)")

        let sub = try TestSubscriber(url: broker.url, patterns: ["restart/#"])
        try client.publish(topic: "restart/test", string: "after", qos: 1)
        #expect(sub.waitFor(count: 1).map(\.payloadString) == ["after"])
        client.disconnect(timeout: .seconds(2))
    }

    @Test func subscriptionsAreRenewedAfterReconnect() throws {
        let broker = try MosquittoBroker.start()
        let client = try makeClient(broker.url, id: "resubscriber")
        let got = Mutex<[String]>([])
        client.onMessage = { m in got.withLock { $0.append(m.payloadString) } }
        try client.subscribe("cmd/#", qos: 1)
        try client.start()
        #expect(eventually { client.statistics.subscriptionsAcknowledged >= 1 })
        broker.kill()
        try broker.restart()
        #expect(eventually(timeout: 10) { client.statistics.subscriptionsAcknowledged >= 2 })
        let publisher = try makeClient(broker.url, id: "cmd-sender")
        try publisher.start()
        #expect(publisher.waitUntilConnected(timeout: .seconds(5)))
        try publisher.publish(topic: "cmd/recalibrate", string: "now", qos: 1)
        #expect(eventually { got.withLock { $0 } == ["now"] })
        publisher.disconnect(timeout: .seconds(1))
        client.disconnect(timeout: .seconds(1))
    }

    @Test func disconnectFinishesWithinItsTimeoutWhenTheBrokerIsFrozen() throws {
        let broker = try MosquittoBroker.start()
        defer { broker.resume() }
        let client = try makeClient(broker.url, id: "frozen")
        try client.start()
        #expect(client.waitUntilConnected(timeout: .seconds(5)))
        broker.pause()
        try client.publish(topic: "edgemotion/x/status", string: "offline", qos: 1, retain: true)
        #expect(client.statistics.outstanding == 1)   // the frozen broker never acknowledges

        let start = Date()
        client.disconnect(timeout: .seconds(1))
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed < 1.3, "disconnect took \(elapsed) s")
        #expect(elapsed > 0.5, "it should have waited for the acknowledgement first (\(elapsed) s)")
        #expect(!client.isConnected)
    }

    @Test func disconnectWaitsForOutstandingQoS1Acknowledgements() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["bulk/#"])
        let client = try makeClient(broker.url, id: "drainer")
        try client.start()
        #expect(client.waitUntilConnected(timeout: .seconds(5)))
        let payload = [UInt8](repeating: 0x41, count: 4096)
        for i in 0..<200 { try client.publish(topic: "bulk/\(i)", payload: payload, qos: 1) }
        client.disconnect(timeout: .seconds(5))
        #expect(client.statistics.outstanding == 0)
        #expect(client.statistics.acknowledged == 200)
        #expect(sub.waitFor(count: 200).count == 200)
    }

    @Test func publishingAfterDisconnectFailsWithNotRunning() throws {
        let broker = try MosquittoBroker.start()
        let client = try makeClient(broker.url, id: "closed")
        try client.start()
        #expect(client.waitUntilConnected(timeout: .seconds(5)))
        client.disconnect(timeout: .seconds(1))
        #expect(throws: MQTTError.self) { try client.publish(topic: "a/b", string: "x") }
        do {
            try client.publish(topic: "a/b", string: "x")
        } catch {
            #expect(error.kind == .notRunning)
            #expect(error.context.contains("a/b"))
        }
        #expect(throws: MQTTError.self) { try client.start() }
    }

    @Test func qos0PublishWhileDisconnectedFailsWithNotConnected() throws {
        let port = try MosquittoBroker.freeLoopbackPort()
        let client = try makeClient("mqtt://127.0.0.1:\(port)", id: "offline-pub")
        try client.start()
        do {
            try client.publish(topic: "x/y", string: "lost", qos: 0)
            Issue.record("expected an error while disconnected")
        } catch {
            #expect(error.kind == .notConnected)
        }
        #expect(client.statistics.publishFailures == 1)
        client.disconnect(timeout: .milliseconds(500))
    }

    @Test func wildcardPublishTopicIsRejectedNamingTheTopic() throws {
        let broker = try MosquittoBroker.start()
        let client = try makeClient(broker.url, id: "wild")
        try client.start()
        #expect(client.waitUntilConnected(timeout: .seconds(5)))
        do {
            try client.publish(topic: "sensor/+/x", string: "x", qos: 0)
            Issue.record("expected invalidTopic")
        } catch {
            #expect(error.kind == .invalidTopic)
            #expect(error.description.contains("sensor/+/x"))
        }
        client.disconnect(timeout: .seconds(1))
    }

    @Test func mqtt5ConnectionRoundTrips() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["v5/#"])
        let client = try makeClient(broker.url, id: "v5-client", protocolVersion: .v5)
        try client.start()
        #expect(client.waitUntilConnected(timeout: .seconds(5)))
        try client.publish(topic: "v5/hello", string: "five", qos: 1)
        #expect(sub.waitFor(count: 1).map(\.payloadString) == ["five"])
        client.disconnect(timeout: .seconds(1))
    }

    @Test func disconnectBeforeStartReleasesTheClient() throws {
        let client = try makeClient("mqtt://127.0.0.1:1", id: "never-started")
        let start = Date()
        client.disconnect(timeout: .seconds(1))
        #expect(Date().timeIntervalSince(start) < 0.5)
        #expect(throws: MQTTError.self) { try client.publish(topic: "a", string: "x", qos: 1) }
    }
}
