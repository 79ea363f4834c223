import Synchronization
import MotionCore

/// One change to the set of runtime consumers, posted by any thread and applied by the
/// processing thread between two drains of the ring.
package enum ConsumerChange: @unchecked Sendable {
    case add(PipelineConsumerID, any PipelineOutput, ConsumerSchedule)
    case update(PipelineConsumerID, ConsumerSchedule)
    case remove(PipelineConsumerID)
    /// New schedules for the static outputs' streams (a reload that changed only rates).
    case rescheduleStatic([SensorStream: EffectiveSchedule], motion: EffectiveSchedule)
    /// New chip-to-board rotations (a learned mount), from the next sample on.
    case remount(IMUMount)
}

/// Hands consumer changes to the processing thread without a lock on its per-sample path.
///
/// Writers append under a `Mutex` and bump an atomic generation; the processing thread compares
/// the generation with the last one it saw once per wake-up (one relaxed load) and takes the
/// mutex only when something changed. After `close()` (the pipeline has ended) posts are refused.
final class ConsumerMailbox: Sendable {
    private let generation = Atomic<UInt64>(0)
    private let pending = Mutex<(changes: [ConsumerChange], closed: Bool)>(([], false))

    /// Queues `change`; `false` when the pipeline has already ended.
    func post(_ change: ConsumerChange) -> Bool {
        let accepted = pending.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.changes.append(change)
            return true
        }
        if accepted { generation.wrappingAdd(1, ordering: .releasing) }
        return accepted
    }

    /// Processing thread: the changes posted since the last call, or `nil` when none (cheap).
    func take(seen: inout UInt64) -> [ConsumerChange]? {
        let g = generation.load(ordering: .acquiring)
        guard g != seen else { return nil }
        seen = g
        return pending.withLock { state in
            let c = state.changes
            state.changes = []
            return c
        }
    }

    /// Processing thread, at the end: refuses further posts and returns what was still queued.
    func close() -> [ConsumerChange] {
        pending.withLock { state in
            state.closed = true
            let c = state.changes
            state.changes = []
            return c
        }
    }
}
