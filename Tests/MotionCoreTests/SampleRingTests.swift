import Testing
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
@testable import MotionCore

@Suite("SampleRing")
struct SampleRingTests {
    @Test(arguments: [(1, 1), (3, 4), (8, 8), (1000, 1024)])
    func capacityRoundsUpToPowerOfTwo(requested: Int, expected: Int) {
        #expect(SampleRing<Int>(minimumCapacity: requested).capacity == expected)
    }

    @Test func wrapsAroundManyTimesPreservingOrder() {
        let ring = SampleRing<Int>(minimumCapacity: 4)
        var next = 0
        for i in 0..<1000 {
            #expect(ring.push(i))
            if i % 3 != 0 {
                #expect(ring.pop() == next)
                next += 1
            }
            if ring.count == ring.capacity { while let v = ring.pop() { #expect(v == next); next += 1 } }
        }
        while let v = ring.pop() { #expect(v == next); next += 1 }
        #expect(next == 1000)
        #expect(ring.droppedCount == 0)
    }

    @Test func fullRingRefusesNewestAndCountsIt() {
        let ring = SampleRing<Int>(minimumCapacity: 4)
        for i in 0..<4 { #expect(ring.push(i)) }
        #expect(!ring.push(99))
        #expect(!ring.push(100))
        #expect(ring.droppedCount == 2)
        // The oldest survive; the refused ones never appear.
        var got: [Int] = []
        ring.drain { got.append($0) }
        #expect(got == [0, 1, 2, 3])
        #expect(ring.pop() == nil)
    }

    @Test func burstPushWrapsAroundAndDropsWhatDoesNotFit() {
        let ring = SampleRing<Int>(minimumCapacity: 8)
        var kept: [Int] = []
        var got: [Int] = []
        // Bursts of 5 into 8 slots, taking 3 out between bursts: it wraps, then fills, and the
        // newest samples of a burst that does not fit are dropped (pushed 5, 5, 4, 3, 3, 3: 7 dropped).
        for round in 0..<6 {
            let burst = (0..<5).map { round * 5 + $0 }
            let pushed = burst.withUnsafeBufferPointer { ring.push(contentsOf: $0) }
            #expect(pushed == [5, 5, 4, 3, 3, 3][round], "round \(round)")
            kept += burst.prefix(pushed)
            for _ in 0..<3 { if let v = ring.pop() { got.append(v) } }
        }
        ring.drain { got.append($0) }
        #expect(got == kept)
        #expect(ring.droppedCount == 7)
    }

    @Test func burstPushIntoAnEmptyRingIsSeenWholeByTheConsumer() {
        let ring = SampleRing<Int>(minimumCapacity: 16)
        // Move the indices so the burst straddles the end of the storage.
        for i in 0..<13 { ring.push(i) }
        ring.drain { _ in }
        let burst = Array(100..<110)
        #expect(burst.withUnsafeBufferPointer { ring.push(contentsOf: $0) } == 10)
        var got: [Int] = []
        #expect(ring.drain { got.append($0) } == 10)
        #expect(got == burst)
        #expect(ring.droppedCount == 0)
    }

    @Test func producerAndConsumerThreadsSeeEverySequenceNumberInOrder() async {
        let ring = SampleRing<UInt64>(minimumCapacity: 256)
        let total: UInt64 = 200_000
        let consumer = Task.detached { () -> (UInt64, Bool) in
            var expected: UInt64 = 0
            var inOrder = true
            while expected < total {
                if let v = ring.pop() {
                    if v != expected { inOrder = false }
                    expected += 1
                } else {
                    sched_yield()
                }
            }
            return (expected, inOrder)
        }
        let producer = Task.detached {
            var i: UInt64 = 0
            while i < total {
                if ring.hasSpace { ring.push(i); i += 1 } else { sched_yield() }
            }
        }
        await producer.value
        let (received, inOrder) = await consumer.value
        #expect(received == total)
        #expect(inOrder)
        #expect(ring.droppedCount == 0)
    }
}
