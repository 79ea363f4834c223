import EdgeMotion
import Platform
import Synchronization

/// The source's health as the pipeline reports it, for the agent's main loop: a static output of
/// the motion service that listens only to `pipeline(sourceStatusChanged:)` (called on the
/// processing thread, at a failure and at a recovery, never per sample). The main loop reads the
/// status for `health` and takes the transitions for `events/status`. Outlives pipelines, like
/// the publisher: a failure reported just before a reload is still announced after it.
final class SourceHealthReport: PipelineOutput, Sendable {
    private let status = Mutex<(failing: Bool, error: String?, changed: Bool)>((false, nil, false))
    /// Failures and recoveries not yet announced (oldest first, at most `capacity`).
    private let transitions = Mutex<[SourceTransition]>([])
    static let capacity = 16
    /// Told after each failure or recovery (the agent wakes its main loop).
    private let onChange: @Sendable () -> Void

    init(onChange: @escaping @Sendable () -> Void = {}) { self.onChange = onChange }

    func pipeline(sourceStatusChanged error: (any Error)?) {
        let text = error.map { "\($0)" }
        status.withLock { $0 = (error != nil, text, true) }
        let transition = SourceTransition(error: text, realtimeNanos: MonotonicClock.realtimeNanos())
        transitions.withLock { q in
            if q.count >= Self.capacity { q.removeFirst() }
            q.append(transition)
        }
        onChange()
    }

    /// The source's health as last reported, and whether it changed since the last call.
    func takeStatus() -> (failing: Bool, error: String?, changed: Bool) {
        status.withLock { s in
            defer { s.changed = false }
            return s
        }
    }

    /// The source failures (`error` set) and recoveries since the last call, oldest first.
    func takeTransitions() -> [SourceTransition] {
        transitions.withLock { q in defer { q.removeAll() }; return q }
    }
}
