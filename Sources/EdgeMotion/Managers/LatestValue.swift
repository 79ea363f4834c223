import Synchronization

/// The newest value of a stream, written by the processing thread and read by any thread
/// without a lock (a sequence lock): the writer never waits, a reader retries in the rare case
/// it overlapped a write. Backs the pull properties (`MotionManager.accelerometerData`, …).
final class LatestValue<Value: BitwiseCopyable>: @unchecked Sendable {
    /// Even: stable; odd: a write is in progress; 0: nothing written yet.
    private let sequence = Atomic<UInt64>(0)
    private let slot = UnsafeMutablePointer<Value>.allocate(capacity: 1)

    init() {}
    deinit { slot.deallocate() }

    /// Writer (one thread only): publishes `value`. No allocation, no lock.
    func store(_ value: Value) {
        let s = sequence.load(ordering: .relaxed)
        sequence.store(s &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        slot.pointee = value
        sequence.store(s &+ 2, ordering: .releasing)
    }

    /// Any thread: the newest value, or `nil` before the first `store`.
    func load() -> Value? {
        while true {
            let before = sequence.load(ordering: .acquiring)
            if before == 0 { return nil }
            if before & 1 == 1 { continue }
            let value = slot.pointee
            atomicMemoryFence(ordering: .acquiring)
            if sequence.load(ordering: .relaxed) == before { return value }
        }
    }
}
