import Foundation
import Synchronization
import Testing
@testable import Messaging
import TestSupport

/// The bounded outbox in front of libmosquitto, against a real broker.
@Suite(.serialized, .ownThread) struct OutboxTests {
    func tempSpool() -> String {
        NSTemporaryDirectory() + "edgemotion-outbox-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).spool"
    }

    /// A client wired to the outbox as the agent wires it.
    func connect(_ outbox: Outbox, url: String, id: String) throws -> MQTTClient {
        let client = try makeClient(url, id: id)
        outbox.attach(client)
        try client.start()
        return client
    }

    @Test func streamBatchesWhileNoBrokerIsReachableStayWithinTheByteBoundAndEveryDropIsCounted() throws {
        let outbox = try Outbox(settings: OutboxSettings(maximumStreamBytes: 10_000, maximumStreamAgeMilliseconds: 60_000))
        defer { outbox.stop() }
        let h = outbox.registerStream(topic: "dev/x/sensor/accelerometer", name: "accelerometer")
        let payload = [UInt8](repeating: 0x41, count: 1000)
        for _ in 0..<100 { payload.withUnsafeBytes { outbox.enqueue(stream: h, payload: $0, qos: 0, retain: false) } }
        let s = outbox.statistics
        #expect(s.queuedBytes <= 10_000)
        #expect(s.queuedStreamMessages == 9)   // 9 × (1000 + 26 topic bytes) ≤ 10 000
        let c = try #require(s.topics["accelerometer"])
        #expect(c.produced == 100)
        #expect(c.dropped[.full] == 91)
        #expect(c.produced == c.acknowledged + c.droppedTotal + s.queuedStreamMessages)
    }

    @Test func streamBatchesOlderThanTheAgeBoundAreDroppedAsExpired() throws {
        let outbox = try Outbox(settings: OutboxSettings(maximumStreamAgeMilliseconds: 200))
        defer { outbox.stop() }
        let h = outbox.registerStream(topic: "dev/x/motion", name: "motion")
        for _ in 0..<5 { [1, 2, 3].withUnsafeBytes { outbox.enqueue(stream: h, payload: $0, qos: 0, retain: false) } }
        #expect(eventually(timeout: 3) { outbox.statistics.topics["motion"]?.dropped[.expired] == 5 })
        #expect(outbox.statistics.queuedBytes == 0)
    }

    @Test func queuedBatchesAndEventsAreDeliveredOnceTheBrokerIsThere() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["dev/#"], qos: 1)
        let path = tempSpool()
        defer { unlink(path) }
        let outbox = try Outbox(settings: OutboxSettings(spoolPath: path, spoolFsync: .always))
        defer { outbox.stop() }
        let h = outbox.registerStream(topic: "dev/x/motion", name: "motion")
        for i in 0..<50 { Array("m\(i)".utf8).withUnsafeBytes { outbox.enqueue(stream: h, payload: $0, qos: 0, retain: false) } }
        for i in 0..<20 { outbox.enqueueEvent(topic: "dev/x/activity", payload: Array("e\(i)".utf8)) }
        // Nothing leaves before a client is attached.
        usleep(200_000)
        #expect(sub.messages.isEmpty)
        #expect(outbox.statistics.spooled == 20)
        let client = try connect(outbox, url: broker.url, id: "outbox-deliver")
        defer { client.disconnect(timeout: .seconds(1)) }
        #expect(outbox.drain(timeout: .seconds(5)))
        let events = sub.waitFor(count: 20, topic: "dev/x/activity").map(\.payloadString)
        #expect(events == (0..<20).map { "e\($0)" }, "events arrive in order")
        #expect(sub.waitFor(count: 50, topic: "dev/x/motion").map(\.payloadString) == (0..<50).map { "m\($0)" })
        let s = outbox.statistics
        #expect(s.topics["activity"]?.acknowledged == 20)
        #expect(s.topics["motion"]?.acknowledged == 50)
        #expect(s.unacknowledgedEvents == 0)
        #expect(s.inflight == 0)
        // Every event was acknowledged: a new outbox on the same spool replays nothing.
        outbox.stop()
        #expect(try Outbox(settings: OutboxSettings(spoolPath: path)).statistics.replayed == 0)
    }

    @Test func eventsNotAcknowledgedBeforeAStopAreReplayedByTheNextOutbox() throws {
        let path = tempSpool()
        defer { unlink(path) }
        do {
            let first = try Outbox(settings: OutboxSettings(spoolPath: path, spoolFsync: .never))
            for i in 0..<7 { first.enqueueEvent(topic: "dev/y/activity", payload: Array("e\(i)".utf8)) }
            #expect(eventually { first.statistics.spooled == 7 })
            first.stop()
        }
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["dev/y/#"], qos: 1)
        let second = try Outbox(settings: OutboxSettings(spoolPath: path))
        defer { second.stop() }
        #expect(second.statistics.replayed == 7)
        let client = try connect(second, url: broker.url, id: "outbox-replay")
        defer { client.disconnect(timeout: .seconds(1)) }
        #expect(sub.waitFor(count: 7, topic: "dev/y/activity").map(\.payloadString) == (0..<7).map { "e\($0)" })
        #expect(second.drain(timeout: .seconds(5)))
    }

    /// The broker keeps the subscriber's persistent session across its (graceful) restart, so what
    /// the outbox delivers after the outage reaches the subscriber even before it is back.
    @Test func eventsSurviveABrokerOutageAndStreamsStayBoundedWhileItLasts() throws {
        let dir = NSTemporaryDirectory() + "edgemotion-outbox-broker-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try MosquittoBroker.start(extraConfig: "persistence true\npersistence_location \(dir)/\n")
        let received = Mutex<[MQTTMessage]>([])
        var subOptions = MQTTConnectionOptions(address: try MQTTBrokerAddress(url: broker.url), clientID: "outbox-session", cleanSession: false)
        subOptions.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(100), maxDelay: .milliseconds(500))
        let subscriber = try MQTTClient(options: subOptions)
        subscriber.onMessage = { m in received.withLock { $0.append(m) } }
        try subscriber.subscribe("dev/z/#", qos: 1)
        try subscriber.start()
        defer { subscriber.disconnect(timeout: .milliseconds(500)) }
        #expect(eventually { subscriber.statistics.subscriptionsAcknowledged >= 1 })
        let path = tempSpool()
        defer { unlink(path) }
        let outbox = try Outbox(settings: OutboxSettings(maximumStreamBytes: 20_000, spoolPath: path))
        defer { outbox.stop() }
        let client = try connect(outbox, url: broker.url, id: "outbox-outage")
        defer { client.disconnect(timeout: .seconds(1)) }
        #expect(client.waitUntilConnected(timeout: .seconds(5)))
        let h = outbox.registerStream(topic: "dev/z/sensor/gyroscope", name: "gyroscope")
        let batch = [UInt8](repeating: 0x42, count: 500)
        var sent = 0
        func produce(_ n: Int) {
            for _ in 0..<n {
                batch.withUnsafeBytes { outbox.enqueue(stream: h, payload: $0, qos: 1, retain: false) }
                outbox.enqueueEvent(topic: "dev/z/activity", payload: Array("e\(sent)".utf8))
                sent += 1
                usleep(2_000)
            }
        }
        produce(50)
        broker.stop()
        produce(200)
        #expect(outbox.statistics.queuedBytes <= 20_000 + 200 * 40, "streams bounded; events queued")
        try broker.restart()
        produce(50)
        #expect(outbox.drain(timeout: .seconds(10)))
        // Every event arrives (at least once; QoS 1 retransmits may duplicate), none lost.
        func events() -> Set<String> { Set(received.withLock { $0 }.filter { $0.topic == "dev/z/activity" }.map(\.payloadString)) }
        _ = eventually(timeout: 10) { events().count >= 300 }
        let got = events()
        #expect(got == Set((0..<300).map { "e\($0)" }), "missing: \(Set((0..<300).map { "e\($0)" }).subtracting(got).sorted().prefix(10))")
        let g = try #require(outbox.statistics.topics["gyroscope"])
        #expect(g.produced == 300)
        #expect(g.droppedTotal > 0, "the 20 kB bound must have dropped batches during the outage")
        #expect(g.produced == g.acknowledged + g.droppedTotal, "\(g)")
    }

    @Test func eventAndStateTopicsNeverCountUnderAStreamsName() throws {
        #expect(TopicLayout.counterName(forTopic: "edgemotion/d/health") == "health")
        #expect(TopicLayout.counterName(forTopic: "edgemotion/d/activity") == "activity")
        #expect(TopicLayout.counterName(forTopic: "edgemotion/d/events/activity") == "events/activity")
        #expect(TopicLayout.counterName(forTopic: "edgemotion/d/latest/accelerometer") == "latest/accelerometer")
        #expect(TopicLayout.counterName(forTopic: "edgemotion/d/pedometer/events") == "pedometer/events")
        let outbox = try Outbox(settings: OutboxSettings())
        defer { outbox.stop() }
        let h = outbox.registerStream(topic: "dev/c/sensor/accelerometer", name: "accelerometer")
        for _ in 0..<5 { [1, 2].withUnsafeBytes { outbox.enqueue(stream: h, payload: $0, qos: 1, retain: false) } }
        outbox.enqueueState(topic: "dev/c/latest/accelerometer", payload: [3])
        outbox.enqueueState(topic: "dev/c/activity", payload: [4])
        outbox.enqueueEvent(topic: "dev/c/events/activity", payload: [5])
        // A topic whose own name is a stream's (another topic) is counted under its full topic.
        outbox.enqueueState(topic: "dev/c/mirror/accelerometer", payload: [6])
        let t = outbox.statistics.topics
        #expect(t["accelerometer"]?.produced == 5, "\(t)")
        #expect(t["latest/accelerometer"]?.produced == 1)
        #expect(t["activity"]?.produced == 1)
        #expect(t["events/activity"]?.produced == 1)
        #expect(t["dev/c/mirror/accelerometer"]?.produced == 1)
    }

    /// QoS 1 batches handed to libmosquitto but not yet acknowledged when the broker dies: the
    /// broker is frozen first (SIGSTOP), so the whole in-flight window is written and waits for
    /// PUBACKs, then stopped. libmosquitto sends them again after the reconnect; each ends up
    /// delivered and acknowledged once, and nothing delivered is also counted as dropped:
    /// distinct batches received + dropped == produced, acknowledged == distinct received.
    @Test func qos1BatchesInFlightWhenTheBrokerDiesAreSentAgainAndCountedOnce() throws {
        let dir = NSTemporaryDirectory() + "edgemotion-outbox-inflight-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try MosquittoBroker.start(extraConfig: "persistence true\npersistence_location \(dir)/\nmax_queued_messages 100000\n")
        let received = Mutex<[MQTTMessage]>([])
        var subOptions = MQTTConnectionOptions(address: try MQTTBrokerAddress(url: broker.url), clientID: "outbox-inflight-sub", cleanSession: false)
        subOptions.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(100), maxDelay: .milliseconds(500))
        let subscriber = try MQTTClient(options: subOptions)
        subscriber.onMessage = { m in received.withLock { $0.append(m) } }
        try subscriber.subscribe("dev/f/#", qos: 1)
        try subscriber.start()
        defer { subscriber.disconnect(timeout: .milliseconds(500)) }
        #expect(eventually { subscriber.statistics.subscriptionsAcknowledged >= 1 })
        let outbox = try Outbox(settings: OutboxSettings(maximumStreamBytes: 8_000, inflightWindow: 16))
        defer { outbox.stop() }
        let client = try connect(outbox, url: broker.url, id: "outbox-inflight")
        defer { client.disconnect(timeout: .seconds(1)) }
        #expect(client.waitUntilConnected(timeout: .seconds(5)))
        let h = outbox.registerStream(topic: "dev/f/sensor/accelerometer", name: "accelerometer")
        var produced = 0
        func produce(_ n: Int) {
            for _ in 0..<n {
                // "b<seq>" padded to 200 bytes: the subscriber de-duplicates by seq.
                let payload = Array("b\(produced) ".utf8) + [UInt8](repeating: 0x2E, count: 200)
                payload.withUnsafeBytes { outbox.enqueue(stream: h, payload: $0, qos: 1, retain: false) }
                produced += 1
                usleep(2_000)
            }
        }
        produce(20)
        #expect(outbox.drain(timeout: .seconds(5)))
        broker.pause()
        produce(30)
        #expect(eventually { outbox.statistics.inflight == 16 }, "the window fills while the broker is frozen: \(outbox.statistics)")
        broker.stop()                 // SIGCONT + SIGTERM: dies with 16 batches in flight
        produce(60)                   // beyond the 8 kB bound: the oldest queued batches are dropped
        try broker.restart()
        #expect(client.waitUntilConnected(timeout: .seconds(10)))
        produce(20)
        #expect(outbox.drain(timeout: .seconds(10)))
        let s = outbox.statistics
        let acc = try #require(s.topics["accelerometer"])
        func distinct() -> Set<Substring> {
            Set(received.withLock { $0 }.filter { $0.topic == "dev/f/sensor/accelerometer" }
                .compactMap { $0.payloadString.split(separator: " ").first })
        }
        _ = eventually(timeout: 10) { distinct().count >= acc.acknowledged }
        let delivered = distinct()
        #expect(s.retransmitted >= 1, "batches in flight at the loss: \(s.retransmitted)")
        #expect(acc.produced == produced)
        #expect(acc.droppedTotal > 0, "the 8 kB bound must have dropped queued batches: \(acc)")
        #expect(acc.dropped[.connectionLost, default: 0] == 0, "QoS 1 in flight is resent, not dropped: \(acc)")
        #expect(acc.acknowledged == delivered.count, "every acknowledged batch reached the subscriber, once: \(acc), \(delivered.count) distinct")
        #expect(delivered.count + acc.droppedTotal == produced, "delivered \(delivered.count) + dropped \(acc.droppedTotal) vs produced \(produced)")
        print("in flight across a broker stop: produced \(produced), delivered \(delivered.count) distinct, dropped \(acc.dropped), retransmitted \(s.retransmitted)")
    }

    @Test func aMessageLibmosquittoRefusesForGoodIsDroppedAndDoesNotBlockTheQueue() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["dev/r/#"], qos: 1)
        let outbox = try Outbox(settings: OutboxSettings())
        defer { outbox.stop() }
        let client = try connect(outbox, url: broker.url, id: "outbox-refuse")
        defer { client.disconnect(timeout: .seconds(1)) }
        outbox.enqueueEvent(topic: "dev/r/bad/#", payload: [1])       // wildcard: invalid topic
        outbox.enqueueEvent(topic: "dev/r/good", payload: Array("ok".utf8))
        #expect(sub.waitFor(count: 1, topic: "dev/r/good").first?.payloadString == "ok")
        #expect(eventually { outbox.statistics.topics["#"]?.dropped[.refused] == 1 })
        #expect(outbox.statistics.lastError != nil)
    }
}
