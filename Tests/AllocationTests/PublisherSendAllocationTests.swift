import CMallocCounter
import Messaging
import MotionCore
import Testing
@testable import Agent

/// `MQTTPublisher` hands each encoded batch to the outbox through one `enqueue` call inside a
/// non-escaping closure. The publisher's own share of a message must be zero allocations: after
/// warm-up the encoders allocate nothing (their own tests), so a batch through the publisher may
/// cost exactly what one direct `Outbox.enqueue` of the same bytes costs (the outbox's copy of the
/// payload and its bookkeeping: 10 allocations a message in a debug build, measured), nothing more. Both are measured side by side on the same outbox, in its steady
/// state (a 64 KiB stream buffer that is full: each enqueue drops the oldest batch).
@Suite struct PublisherSendAllocationTests {
    static func batch(_ n: Int) -> [IMUSample] {
        (0..<n).map { i in
            IMUSample(timestampNanos: 5_000_000_000 + UInt64(i) * 5_000_000, sequence: UInt64(i),
                      specificForce: Vector3(0.1 * Double(i), -9.81, 0.01), rotationRate: Vector3(0.01, -0.02, 0.003),
                      magneticField: Vector3(20, -3, -43), contents: .all)
        }
    }

    /// `format`: the route of the accelerometer stream (JSON or influx lines; the two branches of
    /// the publisher's payload selection).
    @Test(arguments: [PayloadFormat.json, .influx])
    func aBatchThroughThePublisherCostsWhatOneEnqueueCosts(format: PayloadFormat) throws {
        let outbox = try Outbox(settings: OutboxSettings(maximumStreamBytes: 64 << 10))
        defer { outbox.stop() }
        let route = MQTTPublisher.StreamRoute(topic: "t/accel", qos: 0, retain: false, format: format, deviceID: "board-7")
        let publisher = MQTTPublisher(outbox: outbox, routes: [route, route, route, route],
                                      clock: WallClockMapping(offsetNanos: 1_700_000_000_000_000_000))
        let direct = outbox.registerStream(topic: "t/direct", name: "direct")
        let samples = Self.batch(20)
        let payload = [UInt8](repeating: 0x61, count: 1200)
        var publisherAllocations = 0
        var directAllocations = 0
        samples.withUnsafeBufferPointer { buffer in
            payload.withUnsafeBytes { bytes in
                for round in 0..<1200 {
                    let a = mc_thread_allocations()
                    publisher.pipeline(didProduce: buffer.span, of: .accelerometer, interval: 0.005)
                    let b = mc_thread_allocations()
                    outbox.enqueue(stream: direct, payload: bytes, qos: 0, retain: false, wake: false)
                    let c = mc_thread_allocations()
                    if round >= 200 {   // the first 200 rounds fill the buffer and grow the writers
                        publisherAllocations += Int(b - a)
                        directAllocations += Int(c - b)
                    }
                }
            }
        }
        // 1000 measured rounds; the outbox copies each payload at least once, so at least 1000.
        #expect(directAllocations >= 1000, "the malloc counter is not counting (\(directAllocations))")
        #expect(publisherAllocations == directAllocations,
                "\(format) batches through the publisher: \(publisherAllocations) allocations in 1000, a direct enqueue: \(directAllocations)")
    }
}
