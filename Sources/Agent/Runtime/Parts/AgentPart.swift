import Platform

/// One piece of the running agent that has a start and a stop: the broker connection, the
/// outbox, the dashboard, the motion service and each of its consumers. `AgentRunner` is the
/// composition root: it builds its parts and hands them to `PartGroup`s, which start them in
/// order and stop them in reverse (the spirit of swift-service-lifecycle's service groups, but
/// synchronous: everything here runs on the agent's main thread).
protocol AgentPart: AnyObject {
    /// Short, stable, for logs and tests: `broker connection`, `outbox`, `motion service`, …
    var name: String { get }
    /// Starts the part. A part whose failure must not stop the agent (the dashboard, activity
    /// detection) logs it and returns; a throw stops the group's start (`PartGroup.start`).
    func start() throws
    /// Stops the part within what is left of `budget`. Called at most once per successful start,
    /// never for a part whose start threw.
    func stop(within budget: StopBudget)
}

/// The time a stop may take, shared by the parts stopped in one go: each takes the share it was
/// given of the whole (`remaining(0.6)`: until 60 % of the budget is spent), at least 50 ms.
struct StopBudget: Sendable {
    /// The whole budget, seconds (`process.stop_timeout_s`).
    let seconds: Double
    /// Monotonic nanoseconds when the stop began.
    let startNanos: UInt64

    init(seconds: Double, startNanos: UInt64 = MonotonicClock.nowNanos()) {
        self.seconds = seconds
        self.startNanos = startNanos
    }

    /// What is left until `fraction` of the budget is spent, at least 50 ms.
    func remaining(_ fraction: Double) -> Duration {
        let left = seconds * fraction - Double(MonotonicClock.nowNanos() &- startNanos) / 1e9
        return .milliseconds(Int64(max(0.05, left) * 1000))
    }

    /// Milliseconds since the stop began.
    var elapsedMilliseconds: UInt64 { (MonotonicClock.nowNanos() &- startNanos) / 1_000_000 }
}

/// A part made of two closures over what the composition root owns: the form most of the
/// agent's parts take, since their state (the running service, the publishers) is read by the
/// main loop, the commands and `health` as well.
final class ClosurePart: AgentPart {
    let name: String
    private let onStart: () throws -> Void
    private let onStop: (StopBudget) -> Void

    init(_ name: String, start: @escaping () throws -> Void = {}, stop: @escaping (StopBudget) -> Void = { _ in }) {
        self.name = name
        onStart = start
        onStop = stop
    }

    func start() throws { try onStart() }
    func stop(within budget: StopBudget) { onStop(budget) }
}
