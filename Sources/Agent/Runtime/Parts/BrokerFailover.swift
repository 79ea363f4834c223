/// When the broker connection moves to the next broker (`mqtt.fallback_brokers`): a value on the
/// caller's clock (monotonic nanoseconds), checked once per main-loop turn. The current broker
/// must have been unreachable for `mqtt.failover_after_s` (counted from the first turn that saw
/// it disconnected); the next one is taken in order, wrapping; a broker that works is kept
/// (sticky). The runner makes and installs the client (`AgentRunner.failOverIfDue`).
struct BrokerFailover: Equatable, Sendable {
    /// Index into `mqtt.broker` + `mqtt.fallback_brokers` of the broker in use.
    private(set) var index = 0
    /// Moves made since start (`health.mqtt_failovers`).
    private(set) var failovers = 0
    /// The first turn (monotonic ns) that found the connection down, or since the last move.
    private(set) var disconnectedSince: UInt64?

    /// One turn: the index of the broker to move to now, or nil.
    /// - Parameters:
    ///   - brokers: how many brokers are configured (1: never moves).
    ///   - afterSeconds: `mqtt.failover_after_s`.
    mutating func check(connected: Bool, now: UInt64, brokers: Int, afterSeconds: Double) -> Int? {
        if connected { disconnectedSince = nil; return nil }
        guard let since = disconnectedSince else { disconnectedSince = now; return nil }
        guard brokers > 1, Double(now &- since) / 1e9 >= afterSeconds else { return nil }
        disconnectedSince = now
        return (index + 1) % brokers
    }

    /// The client for broker `next` is installed.
    mutating func moved(to next: Int) {
        index = next
        failovers += 1
    }

    /// No client could be made for broker `next` (logged): the next turn tries the one after it.
    mutating func skipped(_ next: Int) { index = next }

    /// A reload installed a client for the first broker again.
    mutating func restartAtFirstBroker() { index = 0 }
}
