/// `process:` — process life (stop, systemd).
public struct ProcessSettings: Sendable, Equatable {
    /// `stop_timeout_s`: on SIGTERM/SIGINT, the longest the agent spends flushing the outbox and
    /// spool and announcing `offline` before it exits, seconds. 0.5 … 300. Keep it below systemd's
    /// `TimeoutStopSec`.
    public var stopTimeoutSeconds: Double
    /// `stats_interval_s`: seconds between `stats` messages (and `health` refreshes). 0.5 … 3600.
    public var statsIntervalSeconds: Double
    /// `pipeline_threads`: 1 = the acquisition thread also runs fusion, batching and publishing
    /// right after each read (one wake-up per burst: least CPU); 2 = processing on its own thread
    /// behind the ring (acquisition never waits for an output, e.g. the recorder's disk); 0 = auto:
    /// 1 when samples arrive in bursts (simulator `burst` > 1, I2C FIFO watermark > 1) and the
    /// recorder is off, else 2.
    public var pipelineThreads: Int

    public init(stopTimeoutSeconds: Double = 5, statsIntervalSeconds: Double = 10, pipelineThreads: Int = 0) {
        self.stopTimeoutSeconds = stopTimeoutSeconds
        self.statsIntervalSeconds = statsIntervalSeconds
        self.pipelineThreads = pipelineThreads
    }
}
