import Foundation
import Synchronization
import Testing
@testable import Messaging
import TestSupport

/// Over plain TCP the thread that publishes writes its own packets; the network thread sleeps
/// until the broker sends something, a write cannot finish, or the client stops.
@Suite(.serialized, .ownThread) struct PublisherWritesTests {
    @Test func publishingDoesNotWakeTheNetworkThread() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["direct/#"], qos: 0)
        let client = try makeClient(broker.url, id: "direct-writer")
        try client.start()
        #expect(client.waitUntilConnected(timeout: .seconds(5)))
        usleep(100_000)   // let the CONNACK turn of the loop settle
        let before = client.statistics.networkThreadWakeups
        #expect(before > 0, "the network thread never polled: this is not the plain-TCP path")

        let messages = 400
        for i in 0..<messages {
            try client.publish(topic: "direct/\(i % 4)", string: "\(i)", qos: 0)
            if i % 10 == 9 { usleep(1_000) }   // bursts of 10, like a FIFO-driven source
        }
        #expect(sub.waitFor(count: messages, timeout: .seconds(10)).count == messages)
        let wakeups = client.statistics.networkThreadWakeups - before
        // Only keepalive ticks (one a second) may wake it; a wake-up per publish (or per burst of
        // ten) would be 40–400.
        #expect(wakeups <= 5, "network thread woke \(wakeups) times for \(messages) publishes")
        #expect(client.statistics.acknowledged == messages)
        client.disconnect(timeout: .seconds(2))
    }

    @Test func writesTheSocketCannotTakeAreFinishedByTheNetworkThread() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["backlog/#"], qos: 0)
        let client = try makeClient(broker.url, id: "backlog-writer")
        let acked = Atomic<Int>(0)
        client.onPublishAcknowledged = { _ in acked.add(1, ordering: .relaxed) }
        try client.start()
        #expect(client.waitUntilConnected(timeout: .seconds(5)))

        // The broker is frozen (SIGSTOP) while 38 MB are published at QoS 0 (QoS 1 would stop at
        // libmosquitto's in-flight limit): the socket buffers fill, writes stop at EAGAIN, and once
        // the broker runs again the network thread must finish them.
        let pid = try #require(broker.pid)
        let messages = 600
        let payload = [UInt8](repeating: 0x5a, count: 64 << 10)
        kill(pid, SIGSTOP)
        for i in 0..<messages {
            try client.publish(topic: "backlog/\(i % 3)", payload: payload, qos: 0)
        }
        let handedOver = client.statistics.writesLeftToNetworkThread
        kill(pid, SIGCONT)
        #expect(handedOver > 0, "the socket never filled: this test did not exercise the hand-over")
        #expect(eventually(timeout: 60) { acked.load(ordering: .relaxed) == messages },
                "acknowledged \(acked.load(ordering: .relaxed)) of \(messages)")
        #expect(sub.waitFor(count: messages, timeout: .seconds(60)).count == messages)
        #expect(client.statistics.outstanding == 0)
        client.disconnect(timeout: .seconds(2))
    }

    @Test func publishingFromAnAcknowledgementOnThePublishersThreadDoesNotDeadlock() throws {
        // A QoS 0 completion runs on the thread that wrote the packet, inside the write: a publish
        // from it must leave its packet to that write loop, not take the socket lock again.
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["reentrant/#"], qos: 0)
        let client = try makeClient(broker.url, id: "reentrant")
        let box = Mutex<MQTTClient?>(client)
        let followUps = Atomic<Int>(0)
        client.onPublishAcknowledged = { _ in
            guard followUps.add(1, ordering: .relaxed).newValue <= 3, let c = box.withLock({ $0 }) else { return }
            _ = try? c.publish(topic: "reentrant/follow-up", string: "f", qos: 0)
        }
        try client.start()
        #expect(client.waitUntilConnected(timeout: .seconds(5)))
        try client.publish(topic: "reentrant/first", string: "1", qos: 0)
        #expect(sub.waitFor(count: 1, topic: "reentrant/first").count == 1)
        #expect(sub.waitFor(count: 3, topic: "reentrant/follow-up").count == 3)
        client.disconnect(timeout: .seconds(2))
        box.withLock { $0 = nil }
    }
}
