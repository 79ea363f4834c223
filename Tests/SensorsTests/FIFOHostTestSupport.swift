import Testing
import MotionCore
@testable import Sensors

/// Shared checks of FIFO mode over scripted chips (`ScriptedFIFOChip`), for every chip driver.
enum FIFOHostTestSupport {
    static func samples(_ n: Int) -> UnsafeMutableBufferPointer<IMUSample> {
        let b = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: n)
        b.initialize(repeating: IMUSample(timestampNanos: 0, sequence: 0, contents: []))
        return b
    }

    /// Expects `out[0..<n]` to be frames `first…` of the scripted stream, in SI units.
    static func expectFrames(_ out: UnsafeMutableBufferPointer<IMUSample>, count n: Int, first: Int = 0,
                             accelScale: Double, gyroScale: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        for i in 0..<n {
            let v = ScriptedFIFOChip.values(first + i)
            let accel = Vector3(Double(v.accel[0]), Double(v.accel[1]), Double(v.accel[2])) * accelScale
            let gyro = Vector3(Double(v.gyro[0]), Double(v.gyro[1]), Double(v.gyro[2])) * gyroScale
            #expect(out[i].specificForce == accel, "frame \(first + i) accel", sourceLocation: sourceLocation)
            #expect(out[i].rotationRate == gyro, "frame \(first + i) gyro", sourceLocation: sourceLocation)
            #expect(out[i].contents == .inertial, sourceLocation: sourceLocation)
        }
    }

    /// An `I2CIMUSource` in FIFO mode (watermark 5, timer wake) over `chip`, with frames arriving
    /// before each FIFO level read: 5, 5, 6, 4, then an overflow, then 5, 5. Expects every frame
    /// handed out in order with its values, the overflow counted once and skipped in `sequence` with
    /// a discontinuity, times strictly increasing and, within a burst, at most the (measured, ±10 %)
    /// period apart.
    static func expectBurstsInOrderAndOneOverflowCounted(chip: ScriptedFIFOChip, model: IMUChipModel, requestedRate: Double,
                                                         expectedRate: Double, sourceLocation: SourceLocation = #_sourceLocation) throws {
        chip.state.withLock { $0.script = [5, 5, 6, 4, -1, 5, 5] }
        let source = I2CIMUSource(bus: 9, address: chip.address, chip: model, fifo: FIFOOptions(watermark: 5),
                                  makeAdapter: { chip })
        let config = try source.start(requestedRate: requestedRate)
        defer { source.stop() }
        #expect(config.timing == .fifoBurst, sourceLocation: sourceLocation)
        #expect(config.rate == expectedRate, sourceLocation: sourceLocation)
        let out = samples(4)                                   // smaller than a burst: the rest waits
        defer { out.deallocate() }
        var got: [IMUSample] = []
        for _ in 0..<400 where got.count < 30 {
            guard case .samples(let n) = try source.read(into: out, timeout: .milliseconds(200)) else { continue }
            got += (0..<n).map { out[$0] }
        }
        #expect(got.count == 30, sourceLocation: sourceLocation)
        #expect(source.fifoOverflows == 1, sourceLocation: sourceLocation)
        let before = got.prefix(20)
        #expect(before.map(\.sequence) == (0..<20).map(UInt64.init), sourceLocation: sourceLocation)
        let scale = try #require(source.chipConfiguration?.accelScale, sourceLocation: sourceLocation)
        #expect(before.enumerated().allSatisfy { $1.specificForce.x == Double($0) * scale }, sourceLocation: sourceLocation)
        let after = Array(got.dropFirst(20))
        #expect(after.first.map { $0.sequence > 20 } == true, "the overflow's lost samples are skipped in seq", sourceLocation: sourceLocation)
        #expect(after.first?.flags.contains(.discontinuity) == true, sourceLocation: sourceLocation)
        #expect(after.map(\.sequence) == (0..<10).map { after[0].sequence + UInt64($0) }, sourceLocation: sourceLocation)
        let t = got.map(\.timestampNanos)
        #expect(zip(t, t.dropFirst()).allSatisfy { $0 < $1 }, sourceLocation: sourceLocation)
        let period = 1e9 / expectedRate
        var start = 0
        for n in [5, 5, 6, 4, 5, 5] {
            let burst = t[start..<(start + n)]
            #expect(zip(burst, burst.dropFirst()).allSatisfy { Double($1 - $0) <= period * 1.1 + 1 }, "burst at \(start): \(Array(burst))",
                    sourceLocation: sourceLocation)
            start += n
        }
    }
}
