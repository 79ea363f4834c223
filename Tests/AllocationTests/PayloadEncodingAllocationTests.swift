import CMallocCounter
import Messaging
import Testing

/// Encodes one sensor batch the way the agent does: header fields, then per-axis arrays.
private func encodeBatch(_ w: inout JSONWriter, seq: UInt64, t0: Int64, samples: Int, deviceName: String) {
    w.reset()
    w.beginObject()
    w.field("seq", seq)
    w.field("t0", t0)
    w.field("dt", 0.01, fractionDigits: 4)
    w.field("n", samples)
    w.field("device", deviceName)
    w.field("unit", "g")
    w.field("synced", true)
    w.key("x"); w.beginArray()
    for i in 0..<samples { w.value(0.001 * Double(i) - 0.5, fractionDigits: 5) }
    w.endArray()
    w.key("y"); w.beginArray()
    for i in 0..<samples { w.value(Float(i) * 0.25, fractionDigits: 5) }
    w.endArray()
    w.key("z"); w.beginArray()
    for i in 0..<samples { w.value(i % 7 == 0 ? Double.nan : 9.80665 + Double(i) * 1e-6, fractionDigits: 5) }
    w.endArray()
    w.key("huge"); w.value(1.5e300)
    w.key("counts"); w.beginArray(); w.value(Int64(-42)); w.value(UInt64.max); w.endArray()
    w.endObject()
}

@Suite struct PayloadEncodingAllocationTests {
    @Test func counterSeesAnAllocation() {
        // Guard: proves the malloc interposer is linked and counting on this thread.
        let before = mc_thread_allocations()
        let a = [Int](repeating: 7, count: 1000)
        #expect(a.count == 1000)
        #expect(mc_thread_allocations() - before >= 1)
    }

    @Test func encodingSensorBatchesDoesNotAllocateAfterWarmUp() {
        var w = JSONWriter(capacity: 8192)
        let device = "board-7 \"lab\"\n"   // a native String built once, outside the window
        for i in 0..<10 { encodeBatch(&w, seq: UInt64(i), t0: 1_700_000_000_000, samples: 50, deviceName: device) }

        let before = mc_thread_allocations()
        var total = 0
        for i in 0..<1000 {
            encodeBatch(&w, seq: UInt64(i), t0: 1_700_000_000_000 + Int64(i) * 500, samples: 50, deviceName: device)
            total &+= w.count
        }
        let allocations = mc_thread_allocations() - before
        #expect(allocations == 0, "JSONWriter allocated \(allocations) times in 1000 batches")
        #expect(total > 1000 * 500)   // the batches really were encoded
    }

    @Test func outgrowingTheCapacityIsTheOnlyReasonToAllocate() {
        // Negative control: the same encoder with too small a buffer must allocate, showing the
        // zero above is not an artefact of the measurement.
        var w = JSONWriter(capacity: 16)
        let before = mc_thread_allocations()
        encodeBatch(&w, seq: 1, t0: 0, samples: 50, deviceName: "x")
        #expect(mc_thread_allocations() - before >= 1)
    }
}
