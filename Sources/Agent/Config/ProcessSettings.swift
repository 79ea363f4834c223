/// `process:` — process life (stop, systemd).
public struct ProcessSettings: Sendable, Equatable {
    /// `stop_timeout_s`: on SIGTERM/SIGINT, the longest the agent spends flushing the outbox and
    /// spool and announcing `offline` before it exits, seconds. 0.5 … 300. Keep it below systemd's
    /// `TimeoutStopSec`.
    public var stopTimeoutSeconds: Double
    /// `stats_interval_s`: seconds between `stats` messages (and `health` refreshes). 0.5 … 3600.
    public var statsIntervalSeconds: Double

    public init(stopTimeoutSeconds: Double = 5, statsIntervalSeconds: Double = 10) {
        self.stopTimeoutSeconds = stopTimeoutSeconds
        self.statsIntervalSeconds = statsIntervalSeconds
    }
}
