import CMallocCounter
import Foundation
import MotionCore
import Testing
@testable import Agent
@testable import EdgeMotion

/// The per-batch paths this feature adds to the processing thread: InfluxDB line protocol
/// encoding and appending samples to a recording block.
@Suite struct RecorderAndInfluxAllocationTests {
    static func batch(_ n: Int, from k: Int) -> [IMUSample] {
        var out: [IMUSample] = []
        for i in 0..<n {
            let t = UInt64(5_000_000_000) + UInt64(k + i) * 5_000_000
            let x = Double(i)
            let a = Vector3(0.1 * x, -9.81, 0.01)
            let g = Vector3(0.01, -0.02, 0.003 * x)
            let m = Vector3(20, -3, -43)
            out.append(IMUSample(timestampNanos: t, sequence: UInt64(k + i), specificForce: a, rotationRate: g, magneticField: m, contents: .all))
        }
        return out
    }

    @Test func influxEncodingDoesNotAllocateAfterWarmUp() {
        var w = LineProtocolWriter(capacity: 1 << 16)
        let prefix = InfluxLineEncoder.sensorPrefix(deviceID: "board-7", stream: .accelerometer)
        let clock = WallClockMapping(offsetNanos: 1_700_000_000_000_000_000)
        let samples = Self.batch(20, from: 0)
        for _ in 0..<10 { samples.withUnsafeBufferPointer { InfluxLineEncoder.encode($0.span, stream: .accelerometer, prefix: prefix, clock: clock, into: &w) } }
        let before = mc_thread_allocations()
        var bytes = 0
        samples.withUnsafeBufferPointer { buffer in
            for _ in 0..<1000 {
                InfluxLineEncoder.encode(buffer.span, stream: .accelerometer, prefix: prefix, clock: clock, into: &w)
                bytes &+= w.buffer.count
            }
        }
        let allocations = mc_thread_allocations() - before
        #expect(allocations == 0, "influx encoding allocated \(allocations) times in 1000 batches")
        #expect(bytes > 1000 * 20 * 60)
    }

    @Test func appendingToARecordingAllocatesNothingPerSample() throws {
        let path = NSTemporaryDirectory() + "edgemotion-alloc-\(UUID().uuidString).emr"
        defer { unlink(path) }
        let writer = try RecordingWriter(path: path, header: RecordingHeader(entries: [("format", "edgemotion-recording")]))
        let samples = Self.batch(2000, from: 0)
        // Index loops over a buffer: iterating an ArraySlice of this large struct allocates in
        // unoptimised builds by itself (measured), which would hide the writer's own behaviour.
        try samples.withUnsafeBufferPointer { buffer in
            for i in 0..<400 { try writer.append(buffer[i]) }   // warm-up: two blocks written
        }
        let before = mc_thread_allocations()
        try samples.withUnsafeBufferPointer { buffer in
            for i in 400..<2000 { try writer.append(buffer[i]) }
        }
        let allocations = mc_thread_allocations() - before
        #expect(allocations == 0, "recording 1600 samples (8 blocks) allocated \(allocations) times")
        try writer.close()
        #expect(try RecordingFileReader(path: path).readAll().count == 2000)
    }
}
