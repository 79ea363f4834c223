/// Parts started in order and stopped in reverse, the one place the agent's start and teardown
/// order is written (`AgentRunner` builds the groups; docs/ARCHITECTURE.md lists the order).
///
/// - `start()` starts, in order, every part not started yet (so a group can grow: the runner
///   starts the broker connection, waits for the broker, then appends and starts the rest). When
///   a part's start throws, the parts already started are stopped in reverse, within
///   `rollbackSeconds`, and the error is rethrown as a `PartStartFailure` naming the part.
/// - `stop(within:)` stops the started parts in reverse order; a second stop does nothing.
/// - A group is itself a part, so the pipeline's parts form a group inside the agent's: a reload
///   stops and restarts that inner group alone, in the same order as the full stop.
///
/// Not thread-safe: used from the agent's main thread only (the observer runs there too).
final class PartGroup: AgentPart {
    let name: String
    /// In start order.
    private(set) var parts: [any AgentPart]
    /// How many of `parts` (a prefix) are started.
    private(set) var startedCount = 0
    /// The budget for stopping the started parts after a failed start, seconds.
    let rollbackSeconds: Double
    /// Told of every part started, stopped, or whose start failed (the runner logs it; tests record it).
    var observer: ((PartEvent) -> Void)?

    init(_ name: String, parts: [any AgentPart] = [], rollbackSeconds: Double = 1, observer: ((PartEvent) -> Void)? = nil) {
        self.name = name
        self.parts = parts
        self.rollbackSeconds = rollbackSeconds
        self.observer = observer
    }

    /// Whether every part is started (and there is at least one).
    var isRunning: Bool { startedCount > 0 && startedCount == parts.count }

    /// Adds parts to start after the present ones (at the next `start()`).
    func append(_ more: any AgentPart...) { parts += more }

    /// Replaces the parts of a stopped group (a reload builds the pipeline's parts anew).
    func replaceParts(_ new: [any AgentPart]) {
        precondition(startedCount == 0, "PartGroup \(name): parts replaced while started")
        parts = new
    }

    func start() throws {
        while startedCount < parts.count {
            let part = parts[startedCount]
            do {
                try part.start()
            } catch {
                observer?(PartEvent(.failed, part.name))
                stop(within: StopBudget(seconds: rollbackSeconds))
                throw PartStartFailure(part: part.name, underlying: error)
            }
            startedCount += 1
            observer?(PartEvent(.started, part.name))
        }
    }

    func stop(within budget: StopBudget) {
        while startedCount > 0 {
            startedCount -= 1
            let part = parts[startedCount]
            part.stop(within: budget)
            observer?(PartEvent(.stopped, part.name))
        }
    }
}

/// A part started, stopped, or failed to start.
struct PartEvent: Equatable, Sendable, CustomStringConvertible {
    enum Kind: String, Sendable { case started, stopped, failed }
    let kind: Kind
    let part: String
    init(_ kind: Kind, _ part: String) { self.kind = kind; self.part = part }
    /// `started outbox`, `stopped motion service`, …
    var description: String { kind.rawValue + " " + part }
}

/// A part's start threw; the parts started before it were stopped again.
struct PartStartFailure: Error, CustomStringConvertible {
    let part: String
    let underlying: any Error
    var description: String { "\(underlying)" }
    /// The error of the innermost part (a group inside a group wraps it once per level).
    var rootCause: any Error {
        var e: any Error = underlying
        while let inner = e as? PartStartFailure { e = inner.underlying }
        return e
    }
}
