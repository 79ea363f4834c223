import Synchronization
import Testing
@testable import Messaging
import TestSupport

/// MQTT 5 request/response publishes go through the same path as every other publish: counted,
/// tracked until acknowledged, and carrying their properties to the subscriber.
@Suite(.serialized, .hangLimit, .ownThread) struct MQTTRequestTests {
    @Test func aRequestIsCountedAndAwaitedLikeEveryQoS1Publish() throws {
        let broker = try MosquittoBroker.start()
        let responder = try makeClient(broker.url, id: "responder", protocolVersion: .v5)
        let received = Mutex<[MQTTMessage]>([])
        responder.onMessage = { m in received.withLock { $0.append(m) } }
        try responder.subscribe("req/#", qos: 1)
        try responder.start()
        #expect(responder.waitUntilConnected(timeout: .seconds(5)))
        #expect(eventually { responder.statistics.subscriptionsAcknowledged >= 1 })

        let requester = try makeClient(broker.url, id: "requester", protocolVersion: .v5)
        let acknowledged = Mutex<[Int32]>([])
        requester.onPublishAcknowledged = { mid in acknowledged.withLock { $0.append(mid) } }
        try requester.start()
        #expect(requester.waitUntilConnected(timeout: .seconds(5)))

        let mid = try requester.publishRequest(topic: "req/a", payload: [1, 2, 3], responseTopic: "resp/a", correlationData: [9, 8])
        // Counted at once, like `publish` (before the fix a request was not counted at all).
        #expect(requester.statistics.published == 1)
        #expect(eventually { acknowledged.withLock { $0.contains(mid) } })
        // Tracked as outstanding until its PUBACK, which `disconnect` waits for.
        #expect(eventually { requester.statistics.outstanding == 0 && requester.statistics.acknowledged == 1 })

        #expect(eventually { !received.withLock { $0.isEmpty } })
        let message = try #require(received.withLock { $0.first })
        #expect(message.topic == "req/a")
        #expect(message.payload == [1, 2, 3])
        #expect(message.qos == 1)
        #expect(message.responseTopic == "resp/a")
        #expect(message.correlationData == [9, 8])
        requester.disconnect(timeout: .seconds(2))
        responder.disconnect(timeout: .seconds(2))
    }

    @Test func aResponseCarriesTheCorrelationDataAndIsCounted() throws {
        let broker = try MosquittoBroker.start()
        let requester = try makeClient(broker.url, id: "asker", protocolVersion: .v5)
        let received = Mutex<[MQTTMessage]>([])
        requester.onMessage = { m in received.withLock { $0.append(m) } }
        try requester.subscribe("resp/#", qos: 1)
        try requester.start()
        #expect(requester.waitUntilConnected(timeout: .seconds(5)))
        #expect(eventually { requester.statistics.subscriptionsAcknowledged >= 1 })

        let responder = try makeClient(broker.url, id: "answerer", protocolVersion: .v5)
        try responder.start()
        #expect(responder.waitUntilConnected(timeout: .seconds(5)))
        try responder.publish(topic: "resp/a", payload: Array("ok".utf8), qos: 1, correlationData: [7])
        #expect(responder.statistics.published == 1)
        #expect(eventually { responder.statistics.outstanding == 0 && responder.statistics.acknowledged == 1 })
        #expect(eventually { received.withLock { $0.first?.correlationData == [7] } })
        // An oversize correlation value is refused naming the limit, not truncated.
        #expect(throws: MQTTError.self) {
            try responder.publish(topic: "resp/a", payload: [], qos: 1, correlationData: [UInt8](repeating: 0, count: 70_000))
        }
        responder.disconnect(timeout: .seconds(2))
        requester.disconnect(timeout: .seconds(2))
    }
}
