import Testing
import Synchronization
import Foundation
import MotionCore
import Sensors
@testable import EdgeMotion
import TestSupport

/// Records everything a pipeline delivers (copies the borrowed batches).
final class RecordingOutput: PipelineOutput, @unchecked Sendable {
    let lock = Mutex<Void>(())
    var batches: [SensorStream: [[IMUSample]]] = [:]
    var motion: [[DeviceMotion]] = []
    var intervals: [SensorStream: Double] = [:]
    var statusChanges: [Bool] = []  // true = failure, false = recovered
    var end: PipelineEnd?
    /// The name of the thread that delivered the first batch.
    var deliveringThread: String?

    func pipeline(didProduce samples: Span<IMUSample>, of stream: SensorStream, interval: Double) {
        if lock.withLock({ _ in deliveringThread == nil }) {
            let text = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            lock.withLock { _ in deliveringThread = text }
        }
        var copy: [IMUSample] = []
        for i in samples.indices { copy.append(samples[i]) }
        lock.withLock { _ in batches[stream, default: []].append(copy); intervals[stream] = interval }
    }
    func pipeline(didProduce motion: Span<DeviceMotion>, interval: Double) {
        var copy: [DeviceMotion] = []
        for i in motion.indices { copy.append(motion[i]) }
        lock.withLock { _ in self.motion.append(copy) }
    }
    func pipeline(sourceStatusChanged error: (any Error)?) { lock.withLock { _ in statusChanges.append(error != nil) } }
    func pipeline(didEnd reason: PipelineEnd) { lock.withLock { _ in end = reason } }
}

@Suite("MotionPipeline", .ownThread)
struct MotionPipelineTests {
    func run(_ source: ScriptedSource, _ configuration: PipelineConfiguration,
             on thread: ProcessingThread = .separate) throws -> RecordingOutput {
        var configuration = configuration
        configuration.processingThread = thread
        let output = RecordingOutput()
        let pipeline = MotionPipeline(source: source, configuration: configuration, outputs: [output])
        try pipeline.start()
        #expect(pipeline.waitUntilEnded(timeout: .seconds(20)))
        pipeline.stop()
        return output
    }

    @Test(arguments: ProcessingThread.allCases)
    func decimatesEachStreamToItsRateAndBatchesByPublishRate(on thread: ProcessingThread) throws {
        let source = ScriptedSource(count: 2000, rate: 200)
        let config = PipelineConfiguration(
            requestedRate: 200,
            accelerometer: StreamSchedule(rate: 100, publishRate: 10),
            gyroscope: StreamSchedule(rate: 200, publishRate: 20),
            magnetometer: StreamSchedule(rate: 50, publishRate: 5),
            motion: StreamSchedule(rate: 25, publishRate: 5))
        let out = try run(source, config, on: thread)
        let acc = out.batches[.accelerometer] ?? []
        #expect(acc.count == 100)                     // 1000 kept samples in batches of 10
        #expect(acc.allSatisfy { $0.count == 10 })
        #expect(acc.flatMap { $0 }.map(\.sequence) == Array(stride(from: 0, to: 2000, by: 2)).map(UInt64.init))
        #expect(out.intervals[.accelerometer] == 0.01)
        #expect((out.batches[.gyroscope] ?? []).flatMap { $0 }.count == 2000)
        #expect((out.batches[.magnetometer] ?? []).flatMap { $0 }.count == 500)
        #expect(out.motion.flatMap { $0 }.count == 250)
        #expect(out.motion.allSatisfy { $0.count == 5 })
        #expect(out.end == .endOfStream)
    }

    @Test func requestedRatesAboveTheSourceAreCappedAndReported() throws {
        let source = ScriptedSource(count: 10, rate: 100)
        let config = PipelineConfiguration(requestedRate: 100, accelerometer: StreamSchedule(rate: 5000, publishRate: 10))
        let pipeline = MotionPipeline(source: source, configuration: config, outputs: [])
        let report = try pipeline.start()
        pipeline.stop()
        #expect(report.streams[.accelerometer]?.rate == 100)
        #expect(report.streams[.accelerometer]?.capped == true)
        #expect(report.streams[.accelerometer]?.batchSize == 10)
    }

    @Test(arguments: ProcessingThread.allCases)
    func partialBatchesAreFlushedAtTheEnd(on thread: ProcessingThread) throws {
        let source = ScriptedSource(count: 105, rate: 100)
        let config = PipelineConfiguration(requestedRate: 100, accelerometer: StreamSchedule(rate: 100, publishRate: 10))
        let out = try run(source, config, on: thread)
        let acc = out.batches[.accelerometer] ?? []
        #expect(acc.flatMap { $0 }.count == 105)
        #expect(acc.last?.count == 5)
    }

    @Test func streamsTheSourceLacksAreNotProduced() throws {
        let source = ScriptedSource(count: 100, rate: 100, sensors: .inertial)
        let out = try run(source, PipelineConfiguration(requestedRate: 100))
        #expect(out.batches[.magnetometer] == nil)
        #expect(out.batches[.gyroscope] != nil)
        #expect(out.motion.first?.first?.heading == -1)
    }

    @Test(arguments: ProcessingThread.allCases)
    func aFailingSourceIsReportedRetriedAndRecovers(on thread: ProcessingThread) throws {
        let source = ScriptedSource(count: 400, rate: 100, failAt: 200)
        let out = try run(source, PipelineConfiguration(requestedRate: 100, accelerometer: StreamSchedule(rate: 100, publishRate: 10)),
                          on: thread)
        #expect(out.statusChanges == [true, false])
        #expect(source.starts.load(ordering: .relaxed) == 2)
        #expect((out.batches[.accelerometer] ?? []).flatMap { $0 }.count == 400)
    }

    @Test(arguments: ProcessingThread.allCases)
    func aSourceThatStaysAwayIsReopenedUntilItWorksAndNoSampleIsLost(on thread: ProcessingThread) throws {
        let source = ScriptedSource(count: 300, rate: 100, failAt: 100, failedStarts: 3)
        var config = PipelineConfiguration(requestedRate: 100, accelerometer: StreamSchedule(rate: 100, publishRate: 10))
        config.processingThread = thread
        config.sourceRetryMaximumSeconds = 0.1     // the cap wins: each attempt waits 0.1 s
        let output = RecordingOutput()
        let pipeline = MotionPipeline(source: source, configuration: config, outputs: [output])
        try pipeline.start()
        #expect(pipeline.waitUntilEnded(timeout: .seconds(20)))
        let stats = pipeline.statistics
        pipeline.stop()
        // One failure episode, reported once however many attempts it took.
        #expect(output.statusChanges == [true, false])
        // First start, three refused re-opens, one that works.
        #expect(source.starts.load(ordering: .relaxed) == 5)
        #expect(stats.sourceRetries == 4)
        #expect(stats.sourceErrors == 4)            // the read failure and three refused starts
        let seqs = (output.batches[.accelerometer] ?? []).flatMap { $0 }.map(\.sequence)
        #expect(seqs == (0..<300).map(UInt64.init))
    }

    @Test(arguments: ProcessingThread.allCases)
    func outputsRunOnTheConfiguredThread(_ thread: ProcessingThread) throws {
        let source = ScriptedSource(count: 200, rate: 100)
        let out = try run(source, PipelineConfiguration(requestedRate: 100), on: thread)
        #expect(out.deliveringThread == (thread == .acquisition ? "em-acquire" : "em-process"))
        #expect((out.batches[.accelerometer] ?? []).flatMap { $0 }.count == 200)
    }

    @Test(arguments: ProcessingThread.allCases)
    func aConsumerAddedWhileRunningGetsSamplesAndTheEnd(on thread: ProcessingThread) throws {
        // 600 samples at 200 Hz, read 64 at a time every 40 ms: about 0.4 s of running.
        let source = ScriptedSource(count: 600, rate: 200, readDelayMicroseconds: 40_000)
        var config = PipelineConfiguration(requestedRate: 200)
        config.processingThread = thread
        let pipeline = MotionPipeline(source: source, configuration: config, outputs: [])
        try pipeline.start()
        usleep(100_000)
        let consumer = RecordingOutput()
        pipeline.addConsumer(consumer, schedule: .only(.accelerometer, StreamSchedule(rate: 200, publishRate: 20)))
        #expect(pipeline.waitUntilEnded(timeout: .seconds(20)))
        pipeline.stop()
        let seqs = (consumer.batches[.accelerometer] ?? []).flatMap { $0 }.map(\.sequence)
        #expect(!seqs.isEmpty)
        #expect(seqs.last == 599)
        #expect(seqs == Array(seqs.first!...599))     // from its first sample on, none missed
        #expect(consumer.end == .endOfStream)
    }

    @Test func theRetryBackoffDoublesFromHalfASecondUpToItsCapAndResets() {
        var b = SourceRetryBackoff(maximum: 3)
        #expect((0..<5).map { _ in b.next() } == [0.5, 1, 2, 3, 3])
        #expect(b.attempts == 5)
        b.reset()
        #expect(b.next() == 0.5)
        var tiny = SourceRetryBackoff(initial: 0.5, maximum: 0.2)
        #expect(tiny.next() == 0.2)                  // the cap wins over the initial delay
    }

    @Test func deviceMotionOfALevelDeviceHasGravityDown() throws {
        let source = ScriptedSource(count: 400, rate: 100)
        let out = try run(source, PipelineConfiguration(requestedRate: 100))
        let last = try #require(out.motion.last?.last)
        #expect(abs(last.gravity.z + 1) < 1e-3)
        #expect(abs(last.userAcceleration.z) < 1e-3)
        // The scripted gyro has a 0.001 rad/s bias on x; the filter holds pitch within 0.01 rad of level.
        #expect(abs(last.attitude.roll) < 0.01 && abs(last.attitude.pitch) < 0.01)
    }
}
