import Messaging
import Synchronization

/// The agent's `cmd/*` handler as a part: messages offered by the MQTT network thread wait in a
/// bounded queue (64; more are dropped, as a flood must not grow memory) and are performed on the
/// runner's thread by `handlePending()`, once per main-loop turn, only while the part is started.
/// It starts after the pipeline (a command acts on a running pipeline) and so stops first: no
/// command is performed while the agent stops. What a command does is the runner's
/// (`AgentRunner+Commands`), handed to `handlePending`.
///
/// Messages offered before the start wait for it (a command sent during the initial broker wait
/// is performed by the first turn, as before this was a part); those pending at the stop are dropped.
///
/// `@unchecked Sendable`: `offer` is the only member called from another thread (the MQTT network
/// thread), and it touches only `queue`, a `Mutex`. `started` is used from the runner's thread
/// alone (start, stop and `handlePending` are called there).
final class CommandHandler: AgentPart, @unchecked Sendable {
    let name = "command handler"
    /// How many commands may wait for the next main-loop turn.
    static let capacity = 64
    private let queue = Mutex<[MQTTMessage]>([])
    private var started = false

    /// Queues a command for the runner's thread (any thread); dropped when `capacity` wait already.
    func offer(_ m: MQTTMessage) {
        queue.withLock { q in if q.count < Self.capacity { q.append(m) } }
    }

    /// Performs with `perform`, in arrival order, the commands waiting now (nothing before the
    /// start or after the stop).
    func handlePending(_ perform: (MQTTMessage) -> Void) {
        guard started else { return }
        let pending = queue.withLock { q -> [MQTTMessage] in defer { q.removeAll() }; return q }
        for m in pending { perform(m) }
    }

    func start() throws { started = true }

    func stop(within budget: StopBudget) {
        started = false
        queue.withLock { $0.removeAll() }
    }
}
