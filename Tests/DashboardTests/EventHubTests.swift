import Testing
@testable import Dashboard

/// `EventHub`: one page that never reads holds at most `queueCapacity` events, loses the oldest,
/// counts every loss, and never slows the others.
@Suite("Event hub fan-out")
struct EventHubTests {
    static func drain(_ c: EventClient) -> String {
        var out: [UInt8] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
        defer { buffer.deallocate() }
        while case .bytes(let n) = c.read(into: buffer, timeoutMilliseconds: 0) { out += buffer[..<n] }
        return String(decoding: out, as: UTF8.self)
    }

    @Test func aPageThatNeverReadsKeepsTheNewestEventsAndEveryLossIsCounted() throws {
        let hub = EventHub(queueCapacity: 16, maximumClients: 4)
        let stuck = try #require(hub.connect())
        let reader = try #require(hub.connect())
        var readerEvents = 0
        for k in 0..<100 {
            hub.broadcast(EventHub.message(event: "live", data: Array("{\"k\":\(k)}".utf8)))
            readerEvents += Self.drain(reader).components(separatedBy: "event: live").count - 1
        }
        // The reader got all 100; the stuck page's queue had 16 places (the first holds the
        // connect-time `retry:` line): 100 + 1 pushed, 16 kept, 85 dropped, the newest kept.
        #expect(readerEvents == 100)
        #expect(hub.statistics.dropped == 85)
        let kept = Self.drain(stuck)
        #expect(kept.components(separatedBy: "event: live").count - 1 == 16)
        #expect(kept.contains("{\"k\":99}") && kept.contains("{\"k\":84}") && !kept.contains("{\"k\":83}"), "\(kept)")
        hub.disconnect(stuck)
        hub.disconnect(reader)
        #expect(hub.statistics.clients == 0)
    }

    @Test func pagesBeyondTheLimitAreRefusedAndCounted() {
        let hub = EventHub(queueCapacity: 4, maximumClients: 2)
        let a = hub.connect(), b = hub.connect(), c = hub.connect()
        #expect(a != nil && b != nil && c == nil)
        #expect(hub.statistics.refused == 1 && hub.statistics.clients == 2)
    }
}
