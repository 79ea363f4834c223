/// `stats` and `health` as a part. While started, the main loop publishes them through the outbox
/// (`stats` every `process.stats_interval_s`, `health` on every change; `AgentRunner.mainLoop` and
/// `+Health`); its stop publishes the last of each directly at QoS 1, so the broker connection
/// stopped after it (its `disconnect`) waits for their acknowledgements. Second in the agent's
/// group: stopped after the outbox delivered what it held (the final counters are final), before
/// the broker connection says `offline`.
final class HealthReporter: AgentPart {
    let name = "health reporter"
    /// Whether the main loop may publish (between the start and the stop).
    private(set) var isReporting = false
    /// Publishes the last `stats` and `health` directly (the runner's thread; the runner sets it).
    var publishFinal: () -> Void = {}

    func start() throws { isReporting = true }

    func stop(within budget: StopBudget) {
        isReporting = false
        publishFinal()
    }
}
