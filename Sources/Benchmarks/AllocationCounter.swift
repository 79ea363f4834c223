import CMallocCounter

/// The malloc interposer linked into this executable (never into `edgemotion`).
enum AllocationCounter {
    /// Heap allocations made by the calling thread so far.
    static var thread: UInt64 { UInt64(mc_thread_allocations()) }
    /// Proves the interposer is live: an array allocation must be seen.
    static func selfTest() -> Bool {
        let before = thread
        let a = [Int](repeating: 7, count: 1000)
        blackHole(a.count)
        return thread - before >= 1
    }
}
