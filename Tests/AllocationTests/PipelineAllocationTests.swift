import Testing
import CMallocCounter
import MotionCore
@testable import EdgeMotion

/// An output that touches every delivered value, so nothing is optimised away.
final class ChecksumOutput: PipelineOutput, @unchecked Sendable {
    var checksum = 0.0
    var batches = 0
    func pipeline(didProduce samples: Span<IMUSample>, of stream: SensorStream, interval: Double) {
        for i in samples.indices { checksum += samples[i].specificForce.z }
        batches += 1
    }
    func pipeline(didProduce motion: Span<DeviceMotion>, interval: Double) {
        for i in motion.indices { checksum += motion[i].attitude.quaternion.w }
        batches += 1
    }
}

@Suite("Allocation-free hot path")
struct PipelineAllocationTests {
    @Test func counterSeesAllocations() {
        // Guard: proves the interposer is live, so the zero results below mean something.
        let before = mc_thread_allocations()
        let array = [Int](repeating: 7, count: 1000)
        #expect(array.count == 1000)
        #expect(mc_thread_allocations() - before >= 1)
    }

    func sample(_ i: Int) -> IMUSample {
        let t = Double(i) / 1000
        return IMUSample(
            timestampNanos: 1_000_000_000 + UInt64(i) * 1_000_000, sequence: UInt64(i),
            specificForce: Vector3(0.3 * t.sin, 0.1, 9.8), rotationRate: Vector3(0.01, -0.02, 0.3 * t.cos),
            magneticField: Vector3(5, 20, -40), contents: .all)
    }

    @Test func ringPushAndPopDoNotAllocate() {
        let ring = SampleRing<IMUSample>(minimumCapacity: 256)
        for i in 0..<1024 { ring.push(sample(i)); _ = ring.pop() }
        let before = mc_thread_allocations()
        for i in 0..<100_000 { ring.push(sample(i)); _ = ring.pop() }
        #expect(mc_thread_allocations() - before == 0)
    }

    @Test func processingEverySampleThroughTheDefaultFilterAndBatchingDoesNotAllocate() {
        measureProcessing(RobustAttitudeFilter.self)
    }

    @Test func processingEverySampleThroughTheComplementaryFilterAndBatchingDoesNotAllocate() {
        measureProcessing(ComplementaryFilter.self)
    }

    @Test func processingWithAMountedChipDoesNotAllocate() throws {
        // x: -y, y: x, z: z for accel/gyro, a learned tilt for the magnetometer: two 3×3 multiplies per sample.
        let mount = IMUMount(inertial: try SensorMount(remapX: SignedAxis(.y, negated: true), y: SignedAxis(.x), z: SignedAxis(.z)),
                             magnetometer: try SensorMount.learned(fromRestingSpecificForce: Vector3(1, 2, 9.5)))
        measureProcessing(RobustAttitudeFilter.self, mount: mount)
    }

    func measureProcessing<F: AttitudeFilter>(_ filter: F.Type, mount: IMUMount = .identity) {
        let rate = 1000.0
        var config = PipelineConfiguration(
            requestedRate: rate,
            accelerometer: StreamSchedule(rate: 1000, publishRate: 50),
            gyroscope: StreamSchedule(rate: 500, publishRate: 25),
            magnetometer: StreamSchedule(rate: 100, publishRate: 10),
            motion: StreamSchedule(rate: 200, publishRate: 10))
        config.mount = mount
        var schedules: [SensorStream: EffectiveSchedule] = [:]
        for s in SensorStream.allCases { schedules[s] = EffectiveSchedule(config.schedule(for: s), sourceRate: rate) }
        var processor = MotionProcessor<F>(
            configuration: config, sourceRate: rate, schedules: schedules,
            motionSchedule: EffectiveSchedule(config.motion, sourceRate: rate))
        let output = ChecksumOutput()
        let outputs: [any PipelineOutput] = [output]
        for i in 0..<2000 { processor.process(sample(i), outputs: outputs) }  // warm-up
        let samples = 100_000
        let before = mc_thread_allocations()
        for i in 2000..<(2000 + samples) { processor.process(sample(i), outputs: outputs) }
        let allocations = mc_thread_allocations() - before
        print("\(F.self): allocations per sample on the processing path: \(Double(allocations) / Double(samples)) (\(allocations) in \(samples) samples, \(output.batches) batches)")
        #expect(allocations == 0)
        #expect(output.batches > 0)
    }
}
