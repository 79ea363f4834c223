import EdgeMotion
import Messaging

/// What the agent's main loop hands the dashboard a few times a second: counters and states
/// that live on the main thread (the pipeline's, the outbox's and the MQTT client's statistics
/// are copies, so the HTTP threads never touch the running parts).
struct AgentStatusSnapshot: Sendable {
    var deviceID = ""
    var topicPrefix = ""
    var sourceName = ""
    /// The source's configured rate, Hz.
    var sourceRate = 0.0
    /// nil before the pipeline runs.
    var pipeline: PipelineStatistics?
    var outbox = OutboxStatistics()
    var connected = false
    var broker = ""
    /// MQTT reconnections since start (over every client the agent had).
    var reconnects = 0
    var failovers = 0
    var lastError: String?
    /// When `lastError` happened, UTC ns.
    var lastErrorNanos: UInt64?
    /// Samples processed per second over the last update interval, Hz.
    var achievedRate = 0.0
}
