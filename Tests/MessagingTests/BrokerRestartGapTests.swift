import Foundation
import Synchronization
import Testing
@testable import Messaging
import TestSupport

/// The issue's case: a 10 s broker restart with the default reconnect policy and the default
/// outbox age bound. The old default (a ceiling doubling from 0.5 s to 30 s) turned it into a
/// 31 s gap, past `max_age_s` (30 s), so queued batches expired.
@Suite(.serialized, .ownThread) struct BrokerRestartGapTests {
    @Test func aTenSecondBrokerRestartCostsLittleMoreThanTenSecondsAndExpiresNothing() throws {
        let broker = try MosquittoBroker.start()
        let options = MQTTConnectionOptions(address: try MQTTBrokerAddress(url: broker.url), clientID: "gap-default")
        #expect(options.reconnect == MQTTReconnectPolicy(), "the defaults are what is measured")
        let client = try MQTTClient(options: options)
        let outbox = try Outbox(settings: OutboxSettings())        // default max age: 30 s
        defer { outbox.stop() }
        outbox.attach(client)
        try client.start()
        defer { client.disconnect(timeout: .seconds(1)) }
        #expect(client.waitUntilConnected(timeout: .seconds(5)))

        // A stream at 20 batches/s for the whole test, from its own thread.
        let h = outbox.registerStream(topic: "dev/gap/motion", name: "motion")
        let producing = Atomic<Bool>(true)
        let producer = Thread {
            var i = 0
            while producing.load(ordering: .relaxed) {
                Array("batch-\(i)".utf8).withUnsafeBytes { outbox.enqueue(stream: h, payload: $0, qos: 0, retain: false) }
                i += 1
                usleep(50_000)
            }
        }
        producer.start()
        defer { producing.store(false, ordering: .relaxed) }
        usleep(1_000_000)

        broker.stop()
        let down = Date()
        #expect(eventually(timeout: 3) { !client.isConnected })
        usleep(10_000_000)
        try broker.restart()
        let up = Date()
        #expect(eventually(timeout: 20) { client.isConnected })
        let back = Date()
        let gap = back.timeIntervalSince(down)
        let afterReturn = back.timeIntervalSince(up)
        FileHandle.standardError.write(Data("BrokerRestartGapTests: broker down 10 s, disconnected for \(String(format: "%.2f", gap)) s, reconnected \(String(format: "%.2f", afterReturn)) s after the broker's return\n".utf8))
        #expect(afterReturn <= 3.5, "reconnected \(afterReturn) s after the broker came back (default cap 3 s)")
        #expect(gap < 30, "the gap must stay below outbox.max_age_s")

        usleep(1_000_000)
        producing.store(false, ordering: .relaxed)
        #expect(outbox.drain(timeout: .seconds(10)))
        let motion = try #require(outbox.statistics.topics["motion"])
        #expect(motion.dropped[.expired, default: 0] == 0, "nothing expired during the outage")
        #expect(motion.produced == motion.acknowledged + motion.droppedTotal)
    }
}
