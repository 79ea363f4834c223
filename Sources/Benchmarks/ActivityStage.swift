#if canImport(Glibc)
import Glibc
#endif
import EdgeMotion
import MotionCore

/// What the agent's activity engine does on the processing thread (`ActivitySink`): per
/// accelerometer sample it receives, `ActivityDetector.update` (resampling, features,
/// classifier, state machine) and/or the step detector. Changes, which the real sink hands to
/// queues, are only counted here. Time spent inside the callbacks is accumulated
/// (`CLOCK_MONOTONIC` around each batch, minus the clock's own cost), so the stage can be
/// measured *inside* `MotionProcessor`, at the consumer's real decimation and batching.
final class ActivityStageOutput: PipelineOutput, @unchecked Sendable {
    let runsActivity: Bool
    let runsPedometer: Bool
    private let detector = ActivityDetector()
    private var pedometer = Pedometer()
    private(set) var nanos: UInt64 = 0
    private(set) var consumed = 0
    private(set) var changes = 0
    /// Cost of one pair of back-to-back clock reads, ns (subtracted per batch).
    private let clockPair: UInt64

    init(activity: Bool, pedometer: Bool) {
        runsActivity = activity
        runsPedometer = pedometer
        var best = UInt64.max
        for _ in 0..<1000 {
            let a = monotonicNanos(), b = monotonicNanos()
            best = min(best, b &- a)
        }
        clockPair = best
    }

    func resetTotals() {
        nanos = 0
        consumed = 0
    }

    func pipeline(didProduce samples: Span<IMUSample>, of stream: SensorStream, interval: Double) {
        guard stream == .accelerometer else { return }
        let t0 = monotonicNanos()
        for i in samples.indices {
            let s = samples[i]
            if runsActivity, detector.update(s) != nil { changes &+= 1 }
            if runsPedometer, pedometer.update(time: s.timestamp, specificForce: s.specificForce) != nil { changes &+= 1 }
        }
        let t1 = monotonicNanos()
        let spent = t1 &- t0
        nanos &+= spent > clockPair ? spent &- clockPair : 0
        consumed &+= samples.count
    }
}

/// The activity engine's stages measured inside the pipeline: a `MotionProcessor` with the
/// agent's default streams and the engine's runtime consumer (accelerometer at 50 Hz, batches
/// of 10, exactly `ActivityEngine`'s schedule), fed by the trial retimed to `rate`. Reports
/// ns per *source* sample (what the stage adds to the per-sample path) and, in the note, per
/// sample the consumer receives.
enum ActivityStage {
    static func measure(name: String, key: String, activity: Bool, pedometer: Bool, rate: Double,
                        trial: TrialData, items: Int, repeats: Int) -> StageResult {
        let c = WholePathCase.defaults(rate: rate)
        let samples = trial.retimed(rate: rate, count: items)
        let processor = c.processor(filter: RobustAttitudeFilter.self)
        let engine = ActivityStageOutput(activity: activity, pedometer: pedometer)
        processor.apply([.add(PipelineConsumerID(rawValue: 1), engine,
                              .only(.accelerometer, StreamSchedule(rate: 50, publishRate: 10)))])
        let outputs: [any PipelineOutput] = [EncodingOutput()]
        let n = samples.count
        let period = UInt64(1e9 / rate)
        var pass: UInt64 = 0
        func runPass() {
            let shift = pass &* UInt64(n)
            pass &+= 1
            for k in 0..<n {
                var s = samples[k]
                s.sequence &+= shift
                s.timestampNanos &+= shift &* period
                processor.process(s, outputs: outputs)
            }
        }
        runPass()  // warm-up
        engine.resetTotals()
        let before = AllocationCounter.thread
        runPass()
        let allocations = Double(AllocationCounter.thread - before) / Double(n)
        var runs: [Double] = []
        var perConsumed: [Double] = []
        for _ in 0..<repeats {
            engine.resetTotals()
            runPass()
            runs.append(Double(engine.nanos) / Double(n))
            perConsumed.append(Double(engine.nanos) / Double(max(engine.consumed, 1)))
        }
        blackHole(engine.changes)
        let each = perConsumed.min() ?? .nan
        return StageResult(name: name, key: key, runs: runs, allocationsPerSample: allocations,
                           note: "inside MotionProcessor as the activity engine's consumer (50 Hz of a \(Int(rate)) Hz source): "
                               + "\((each * 10).rounded() / 10) ns per consumed sample")
    }
}
