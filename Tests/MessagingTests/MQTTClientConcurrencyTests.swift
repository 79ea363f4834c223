import Foundation
import Synchronization
import Testing
@testable import Messaging
import TestSupport

@Suite(.serialized, .ownThread) struct MQTTClientConcurrencyTests {
    @Test func concurrentQoS1PublishersFromSeveralThreadsAreAllAcknowledged() throws {
        let broker = try MosquittoBroker.start()
        let client = try makeClient(broker.url, id: "many-threads")
        let acked = Atomic<Int>(0)
        client.onPublishAcknowledged = { _ in acked.add(1, ordering: .relaxed) }
        try client.start()
        #expect(client.waitUntilConnected(timeout: .seconds(5)))

        let threads = 4, perThread = 500
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            let payload = [UInt8](repeating: UInt8(t), count: 256)
            for i in 0..<perThread {
                do { try client.publish(topic: "load/\(t)", payload: payload, qos: i % 2) }
                catch { failures.add(1, ordering: .relaxed) }
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(eventually(timeout: 20) { acked.load(ordering: .relaxed) == threads * perThread },
                "acknowledged \(acked.load(ordering: .relaxed)) of \(threads * perThread)")
        #expect(client.statistics.outstanding == 0)
        #expect(client.statistics.published == threads * perThread)
        client.disconnect(timeout: .seconds(2))
    }

    @Test func publishingFromInsideCallbacksDoesNotDeadlock() throws {
        // The agent re-publishes `online` when (re)connected and answers commands from onMessage:
        // both run on the network thread while libmosquitto holds its callback mutex.
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["cb/#"])
        let client = try makeClient(broker.url, id: "callback-publisher")
        let box = Mutex<MQTTClient?>(client)
        client.onConnectionChange = { state in
            guard state == .connected, let c = box.withLock({ $0 }) else { return }
            _ = try? c.publish(topic: "cb/status", string: "online", qos: 1, retain: true)
        }
        client.onMessage = { m in
            guard let c = box.withLock({ $0 }) else { return }
            _ = try? c.publish(topic: "cb/reply", string: "re:" + m.payloadString, qos: 1)
        }
        let firstAck = Atomic<Bool>(true)
        client.onPublishAcknowledged = { _ in
            guard firstAck.exchange(false, ordering: .relaxed), let c = box.withLock({ $0 }) else { return }
            _ = try? c.publish(topic: "cb/after-ack", string: "x", qos: 0)
        }
        try client.subscribe("cmd/ping", qos: 1)
        try client.start()
        #expect(sub.waitFor(count: 1, topic: "cb/status").first?.payloadString == "online")

        let sender = try makeClient(broker.url, id: "pinger")
        try sender.start()
        #expect(sender.waitUntilConnected(timeout: .seconds(5)))
        #expect(eventually { client.statistics.subscriptionsAcknowledged >= 1 })
        try sender.publish(topic: "cmd/ping", string: "1", qos: 1)
        #expect(sub.waitFor(count: 1, topic: "cb/reply").first?.payloadString == "re:1")
        #expect(sub.waitFor(count: 1, topic: "cb/after-ack").count == 1)

        // And it recovers after a reconnect, publishing `online` again from the callback.
        sub.clear()
        #expect(client.dropConnectionAbruptly())
        #expect(sub.waitFor(count: 1, topic: "cb/status", timeout: .seconds(10)).first?.payloadString == "online")
        sender.disconnect(timeout: .seconds(1))
        client.disconnect(timeout: .seconds(2))
        box.withLock { $0 = nil }
    }
}
