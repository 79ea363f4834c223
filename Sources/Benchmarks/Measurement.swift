#if canImport(Glibc)
import Glibc
#endif
import Platform

/// CPU time of the calling thread, ns (`CLOCK_THREAD_CPUTIME_ID`): time this thread ran, so a
/// benchmark preempted by other processes on a shared machine is not charged for their time.
@inline(__always)
func threadCPUNanos() -> UInt64 { MonotonicClock.threadCPUNanos() }

/// Wall-clock `CLOCK_MONOTONIC`, ns.
@inline(__always)
func monotonicNanos() -> UInt64 { MonotonicClock.nowNanos() }

/// Keeps a computed value alive so the optimiser cannot delete the work that produced it.
@inline(never)
func blackHole<T>(_ value: T) {
    withUnsafePointer(to: value) { p in sinkAddress = UInt(bitPattern: p) & 1 }
}
nonisolated(unsafe) var sinkAddress: UInt = 0

/// One measured stage: ns per sample, min and median over repeats.
struct StageResult {
    var name: String
    var key: String
    /// ns per sample (per item), each repeat.
    var runs: [Double]
    /// Heap allocations per sample in one steady-state pass, when counted.
    var allocationsPerSample: Double?
    var note: String = ""

    var minimum: Double { runs.min() ?? .nan }
    var median: Double {
        guard !runs.isEmpty else { return .nan }
        let s = runs.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}

/// Runs `body` `repeats` times after one warm-up pass; `body` processes `items` items and the
/// result is thread CPU ns per item.
func measureStage(_ name: String, key: String, items: Int, repeats: Int, note: String = "",
             countAllocations: Bool = true, _ body: () -> Void) -> StageResult {
    body()  // warm-up: first-touch page faults, lazily allocated buffers, caches
    var allocs: Double?
    if countAllocations {
        let before = AllocationCounter.thread
        body()
        allocs = Double(AllocationCounter.thread - before) / Double(items)
    }
    var runs: [Double] = []
    runs.reserveCapacity(repeats)
    for _ in 0..<repeats {
        let t0 = threadCPUNanos()
        body()
        let t1 = threadCPUNanos()
        runs.append(Double(t1 - t0) / Double(items))
    }
    return StageResult(name: name, key: key, runs: runs, allocationsPerSample: allocs, note: note)
}
