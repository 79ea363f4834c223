import Dispatch
import Testing
import CMallocCounter
import MotionCore
@testable import EdgeMotion
import Sensors

@Suite("Allocation-free runtime consumers")
struct ConsumerAllocationTests {
    func sample(_ i: Int) -> IMUSample {
        let t = Double(i) / 1000
        return IMUSample(
            timestampNanos: 1_000_000_000 + UInt64(i) * 1_000_000, sequence: UInt64(i),
            specificForce: Vector3(0.3 * t.sin, 0.1, 9.8), rotationRate: Vector3(0.01, -0.02, 0.3 * t.cos),
            magneticField: Vector3(5, 20, -40), contents: .all)
    }

    @Test func runtimeConsumersWithTheirOwnRatesAndFramesDoNotAllocatePerSample() {
        let rate = 1000.0
        let config = MotionService.libraryConfiguration(for: GatedSourceStub(rate: rate), rate: rate)
        var processor = MotionProcessor<ComplementaryFilter>(
            configuration: config, sourceRate: rate, schedules: [:],
            motionSchedule: EffectiveSchedule(.disabled, sourceRate: rate), sensors: .all)
        let a = ChecksumOutput(), b = ChecksumOutput()
        // A pull-only manager stream: the sink stores the newest value, nothing else.
        let pull = UpdateSink<AccelerometerData>(delivery: .pull, fromSample: { $0.accelerometerData }, fromMotion: nil)
        let pullMotion = UpdateSink<DeviceMotion>(delivery: .pull, fromSample: nil, fromMotion: { $0 },
                                                  needsHeading: true)
        processor.apply([
            .add(PipelineConsumerID(rawValue: 1), a, ConsumerSchedule(
                accelerometer: StreamSchedule(rate: 500, publishRate: 50), gyroscope: StreamSchedule(rate: 100, publishRate: 10),
                motion: StreamSchedule(rate: 100, publishRate: 10), referenceFrame: .xMagneticNorthZVertical)),
            .add(PipelineConsumerID(rawValue: 2), b, ConsumerSchedule(
                magnetometer: StreamSchedule(rate: 50, publishRate: 5), motion: StreamSchedule(rate: 200, publishRate: 20),
                referenceFrame: .xArbitraryZVertical)),
            .add(PipelineConsumerID(rawValue: 3), pull, .only(.accelerometer, StreamSchedule(rate: 50, publishRate: 50))),
            .add(PipelineConsumerID(rawValue: 4), pullMotion, .motion(StreamSchedule(rate: 50, publishRate: 50), frame: nil)),
        ])
        let outputs: [any PipelineOutput] = []
        for i in 0..<2000 { processor.process(sample(i), outputs: outputs) }  // warm-up
        let samples = 100_000
        let before = mc_thread_allocations()
        for i in 2000..<(2000 + samples) { processor.process(sample(i), outputs: outputs) }
        let allocations = mc_thread_allocations() - before
        print("allocations per sample with 4 runtime consumers: \(Double(allocations) / Double(samples)) (\(allocations) in \(samples) samples)")
        #expect(allocations == 0)
        #expect(a.batches > 0 && b.batches > 0)
        #expect(pull.latest.load() != nil && pullMotion.latest.load() != nil)
    }
}

extension ConsumerAllocationTests {
    @Test func activityAndStepDetectionOnTheProcessingThreadDoNotAllocatePerSample() {
        let rate = 50.0
        let config = MotionService.libraryConfiguration(for: GatedSourceStub(rate: rate), rate: rate)
        var processor = MotionProcessor<ComplementaryFilter>(
            configuration: config, sourceRate: rate, schedules: [:],
            motionSchedule: EffectiveSchedule(.disabled, sourceRate: rate), sensors: .all)
        let history = InMemoryActivityHistory()
        let sink = ActivitySink(activity: ActivityConfiguration(), pedometer: PedometerConfiguration(), observers: ActivityObservers(),
                                history: history, historyQueue: DispatchQueue(label: "test.history"), clock: .current())
        processor.apply([.add(PipelineConsumerID(rawValue: 1), sink, .only(.accelerometer, StreamSchedule(rate: 50, publishRate: 10)))])
        // A device lying still: once the activity has settled nothing changes, so nothing is sent on.
        func still(_ i: Int) -> IMUSample {
            IMUSample(timestampNanos: 1_000_000_000 + UInt64(i) * 20_000_000, sequence: UInt64(i),
                      specificForce: Vector3(0.01 * Double(i % 7), 0.02, 9.80665), rotationRate: Vector3(0.001, 0, 0),
                      magneticField: Vector3(5, 20, -40), contents: .all)
        }
        let outputs: [any PipelineOutput] = []
        for i in 0..<3000 { processor.process(still(i), outputs: outputs) }   // 60 s: the activity settles
        #expect(sink.latestActivity.load()?.stationary == true)
        let samples = 50_000
        let before = mc_thread_allocations()
        for i in 3000..<(3000 + samples) { processor.process(still(i), outputs: outputs) }
        let allocations = mc_thread_allocations() - before
        // The same samples through a bare ActivityDetector (MotionCore, another module's code).
        let detector = ActivityDetector()
        for i in 0..<3000 { _ = detector.update(still(i)) }
        let detectorBefore = mc_thread_allocations()
        for i in 3000..<(3000 + samples) { _ = detector.update(still(i)) }
        let detectorAllocations = mc_thread_allocations() - detectorBefore
        print("allocations per sample with activity and step detection: \(Double(allocations) / Double(samples)); ActivityDetector alone: \(Double(detectorAllocations) / Double(samples))")
        // Everything the engine adds around the detector (pipeline, step detector, sink) is free,
        // and so is the detector.
        #expect(allocations == detectorAllocations)
        #expect(detectorAllocations == 0)
    }
}

/// Only its capabilities are read (for the library configuration).
final class GatedSourceStub: IMUSource, Sendable {
    let capabilities: SourceCapabilities
    init(rate: Double) { capabilities = SourceCapabilities(name: "stub", sensors: .all, maximumRate: rate) }
    func start(requestedRate: Double) throws -> SourceConfiguration { SourceConfiguration(rate: 1000, timing: .simulated) }
    func read(into buffer: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws -> ReadResult { .endOfStream }
    func stop() {}
}
