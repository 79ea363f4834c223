#if canImport(Glibc)
import Glibc
#endif
import EdgeMotion
import Messaging
import MotionCore

// edgemotion-bench: benchmarks run on demand (never as timed unit tests). See docs/performance.md.

let usage = """
usage: edgemotion-bench stages [--json] [--repeats R] [--samples N] [--trial FILE.csv.gz]
       edgemotion-bench awake [--json] [--repeats R] [--bursts N] [--interval-ms MS]
       edgemotion-bench profile [--filter robust|complementary] [--samples N] [--rate HZ]
                                [--publish-rate N] [--streams 1…4] [--synthetic]
       edgemotion-bench dashboard [--samples N] [--repeats R] [--rate HZ] [--trial FILE.csv.gz] [--calibration]
       edgemotion-bench subscribe --url mqtt://127.0.0.1:PORT --topic PATTERN [--topic …]
                                  --seconds S [--warm-up S] [--ready FILE]

stages     per-stage ns/sample (thread CPU time; min and median over R repeats) on a recorded BROAD
           trial, the agent's whole per-sample path (ring, fusion, batching, JSON encoding; no send)
           in one thread and through the real two-thread MotionPipeline, its scaling with rate and
           streams, and heap allocations per sample in steady state (malloc interposer).
awake      one wake-up's computation as `edgemotion run` does it on the simulator (1 kHz, bursts
           of 10, 4 streams): back to back, then paced at 100 wake-ups/s (thread CPU of the awake
           part only; --interval-ms: another interval than 10 ms); the difference is the cost of
           waking with cold caches (also in `stages`).
profile    the whole per-sample path once (3 passes: warm-up, allocation count, timed), for
           valgrind --tool=callgrind.
dashboard  the per-sample path (processing thread CPU ns and heap allocations per sample) with the
           dashboard on and 0 pages, then 20 pages reading /events plus one that never reads
           (--calibration: and a row with the calibration page's accel and mag steps collecting).
subscribe  counts batches per topic (seq gaps = missing) and measures per-sample latency from the
           sample timestamp (t0_mono_ns + dt_us) to arrival, both CLOCK_MONOTONIC; prints JSON.
"""

func stderrPrint(_ s: String) {
    let line = s + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

let args = Array(CommandLine.arguments.dropFirst(2))
guard let command = CommandLine.arguments.dropFirst().first else { stderrPrint(usage); exit(64) }

@MainActor func option(_ name: String) -> String? {
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    return args[i + 1]
}
@MainActor func options(_ name: String) -> [String] {
    var out: [String] = []
    for (i, a) in args.enumerated() where a == name && i + 1 < args.count { out.append(args[i + 1]) }
    return out
}

do {
    switch command {
    case "stages":
        let repeats = Int(option("--repeats") ?? "") ?? 7
        let passSamples = Int(option("--samples") ?? "") ?? 50_000
        guard AllocationCounter.selfTest() else { throw BenchError("malloc interposer not live; allocation counts would be meaningless") }
        let trial = try TrialData.load(path: option("--trial"))
        let report = try StageReport.run(trial: trial, repeats: repeats, passSamples: passSamples)
        print(args.contains("--json") ? report.json() : report.table())
    case "awake":
        let trial = try TrialData.load(path: option("--trial"))
        var report = StageReport(trial: trial, repeats: Int(option("--repeats") ?? "") ?? 5)
        report.loadAverage = StageReport.loadAverage()
        let interval = Double(option("--interval-ms") ?? "").map { UInt64(max(0.01, $0) * 1e6) } ?? PacedPath.defaultIntervalNanos
        report.sections.append(StageReport.awakeSection(repeats: report.repeats, bursts: Int(option("--bursts") ?? "") ?? 200,
                                                        intervalNanos: interval))
        print(args.contains("--json") ? report.json() : report.table())
    case "profile":
        // One pass of the whole per-sample path, for `valgrind --tool=callgrind` (instruction counts
        // are repeatable on a noisy machine where times are not).
        let samples = Int(option("--samples") ?? "") ?? 20_000
        let trial = args.contains("--synthetic") ? TrialData.synthetic(count: samples, rate: 1000) : try TrialData.load(path: option("--trial"))
        let c = WholePathCase.everySample(rate: Double(option("--rate") ?? "") ?? 1000,
                                          publishRate: Double(option("--publish-rate") ?? "") ?? 10,
                                          streams: Int(option("--streams") ?? "") ?? 4)
        let r = option("--filter") == "complementary"
            ? c.measure(filter: ComplementaryFilter.self, trial: trial, items: samples, repeats: 1)
            : c.measure(filter: RobustAttitudeFilter.self, trial: trial, items: samples, repeats: 1)
        print("\(r.name): \(r.minimum) ns/sample, \(r.allocationsPerSample ?? -1) allocs/sample")
    case "dashboard":
        guard AllocationCounter.selfTest() else { throw BenchError("malloc interposer not live; allocation counts would be meaningless") }
        let trial = try TrialData.load(path: option("--trial"))
        print(try DashboardRun.table(trial: trial, samples: Int(option("--samples") ?? "") ?? 400_000,
                                     repeats: Int(option("--repeats") ?? "") ?? 3, rate: Double(option("--rate") ?? "") ?? 1000,
                                     clientCounts: [0, 20], calibration: args.contains("--calibration")))
    case "subscribe":
        guard let url = option("--url"), let seconds = Double(option("--seconds") ?? "") else {
            stderrPrint(usage); exit(64)
        }
        let topics = options("--topic")
        print(try SubscribeCommand.run(url: url, topics: topics.isEmpty ? ["edgemotion/+/sensor/accelerometer"] : topics,
                                       seconds: seconds, warmUp: Double(option("--warm-up") ?? "") ?? 1,
                                       readyFile: option("--ready")))
    default:
        stderrPrint(usage); exit(64)
    }
} catch {
    stderrPrint("edgemotion-bench: \(error)")
    exit(1)
}
