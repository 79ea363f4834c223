#if canImport(Glibc)
import Glibc
#endif
import CMallocCounter
import EdgeMotion
import MotionCore

/// The real two-thread `MotionPipeline` (acquisition thread → ring → processing thread) fed by an
/// `ArraySource` as fast as it goes, with an `EncodingOutput`: the production code path exactly as
/// the agent runs it, minus the network send. Measures process CPU (user + sys) per sample.
enum PipelineRun {
    struct Result {
        var cpuNanosPerSample: Double
        var wallNanosPerSample: Double
        var samples: Int
        var allocations: UInt64
    }

    static func processCPUNanos() -> UInt64 {
        var u = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &u)
        let user = UInt64(u.ru_utime.tv_sec) * 1_000_000_000 + UInt64(u.ru_utime.tv_usec) * 1000
        let sys = UInt64(u.ru_stime.tv_sec) * 1_000_000_000 + UInt64(u.ru_stime.tv_usec) * 1000
        return user + sys
    }

    static func once(_ c: WholePathCase, trial: TrialData, samples total: Int) throws -> Result {
        let base = trial.retimed(rate: c.rate, count: min(total, 65_536))
        let source = ArraySource(samples: base, rate: c.rate, total: total, sensors: c.sensors)
        let output = EncodingOutput()
        let pipeline = MotionPipeline(source: source, configuration: c.configuration, outputs: [output])
        let a0 = mc_total_allocations()
        let cpu0 = processCPUNanos(), wall0 = monotonicNanos()
        try pipeline.start()
        while !pipeline.waitUntilEnded(timeout: .seconds(60)) {}
        let cpu1 = processCPUNanos(), wall1 = monotonicNanos()
        let a1 = mc_total_allocations()
        pipeline.stop()
        let processed = Int(pipeline.statistics.samplesProcessed)
        guard processed == total else { throw BenchError("pipeline processed \(processed) of \(total) samples") }
        blackHole(output.bytes)
        return Result(cpuNanosPerSample: Double(cpu1 - cpu0) / Double(total),
                      wallNanosPerSample: Double(wall1 - wall0) / Double(total),
                      samples: total, allocations: UInt64(a1 - a0))
    }

    /// min/median CPU ns per sample over `repeats` runs of `samples` each, and steady-state
    /// allocations per sample from the difference between a run of `samples` and one of 3×.
    static func measure(_ c: WholePathCase, trial: TrialData, samples: Int, repeats: Int) throws -> StageResult {
        var runs: [Double] = []
        var small: Result?
        for _ in 0..<repeats {
            let r = try once(c, trial: trial, samples: samples)
            runs.append(r.cpuNanosPerSample)
            small = small ?? r
        }
        let big = try once(c, trial: trial, samples: 3 * samples)
        let extra = Double(Int64(big.allocations) - Int64(small!.allocations)) / Double(2 * samples)
        return StageResult(name: "pipeline threads: " + c.name, key: "pipeline_" + c.key, runs: runs,
                           allocationsPerSample: extra,
                           note: "process CPU (both threads), allocations by N vs 3N difference")
    }
}
