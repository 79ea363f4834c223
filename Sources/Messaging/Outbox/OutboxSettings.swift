/// Bounds and persistence of an `Outbox`. The defaults here are the agent's config defaults too
/// (`outbox:` and `spool:` read theirs from `OutboxSettings.defaults`).
public struct OutboxSettings: Sendable, Equatable {
    /// Memory for queued stream batches (payload + topic bytes); the oldest is dropped beyond it.
    public var maximumStreamBytes: Int
    /// Stream batches older than this (ms) are dropped instead of sent (stale data after an outage).
    public var maximumStreamAgeMilliseconds: Int
    /// `maximumStreamAgeMilliseconds` in ns (a negative age is 0).
    var maximumStreamAgeNanos: UInt64 { UInt64(max(0, maximumStreamAgeMilliseconds)) * 1_000_000 }
    /// Messages handed to libmosquitto and not yet confirmed (QoS 0: written; QoS 1: PUBACK), at most.
    /// Keeps libmosquitto's own (unbounded) queues short. Keep it ≤ 20 (libmosquitto's default
    /// in-flight limit for MQTT 3.1.1).
    public var inflightWindow: Int
    /// Spool file for events; `nil` keeps events in memory only (lost on restart).
    public var spoolPath: String?
    public var spoolFsync: SpoolFsyncPolicy
    /// Bytes of unacknowledged events kept; beyond it the oldest event is dropped (`spool_full`).
    public var maximumSpoolBytes: Int
    /// How event and state topics name their counters; the topic tree's owner supplies it
    /// (default: `TopicLayout.counterNaming`, the agent's tree).
    public var counterNaming: TopicCounterNaming

    /// Every setting at its default.
    public static let defaults = OutboxSettings()

    public init(maximumStreamBytes: Int = 4 << 20, maximumStreamAgeMilliseconds: Int = 30_000, inflightWindow: Int = 16,
                spoolPath: String? = nil, spoolFsync: SpoolFsyncPolicy = .interval(milliseconds: 1000),
                maximumSpoolBytes: Int = 8 << 20, counterNaming: TopicCounterNaming = TopicLayout.counterNaming) {
        self.maximumStreamBytes = maximumStreamBytes
        self.maximumStreamAgeMilliseconds = maximumStreamAgeMilliseconds
        self.inflightWindow = inflightWindow
        self.spoolPath = spoolPath
        self.spoolFsync = spoolFsync
        self.maximumSpoolBytes = maximumSpoolBytes
        self.counterNaming = counterNaming
    }
}
