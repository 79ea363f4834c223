/// Counters of one topic (or one stream) in the outbox.
public struct OutboxTopicCounts: Sendable, Equatable {
    /// Messages given to the outbox.
    public var produced = 0
    /// Messages handed to libmosquitto (a QoS 1 message resent after a restart counts again).
    public var published = 0
    /// Confirmed: QoS 0 written to the socket, QoS 1 PUBACK received.
    public var acknowledged = 0
    /// Discarded, by reason.
    public var dropped: [OutboxDropReason: Int] = [:]
    public var droppedTotal: Int { dropped.values.reduce(0, +) }
    public init() {}
}

/// A snapshot of an `Outbox`'s counters and queue sizes.
public struct OutboxStatistics: Sendable, Equatable {
    /// Per counter name (`accelerometer`, `motion`, `activity`, `health`, …).
    public var topics: [String: OutboxTopicCounts] = [:]
    /// Events written to the spool (this run).
    public var spooled = 0
    /// Events recovered from the spool at start (unacknowledged in the previous run).
    public var replayed = 0
    /// Damaged spool records skipped at start.
    public var spoolCorruptRecords = 0
    /// Times the spool file was found deleted or replaced while running and recreated (with every
    /// unacknowledged event).
    public var spoolRecreations = 0
    /// Spool write/fsync failures (the events stay in memory).
    public var spoolWriteFailures = 0
    /// Why the spool cannot write right now (disk full, …), until a write succeeds again.
    public var spoolWriteProblem: String?
    /// Size of the spool file, bytes.
    public var spoolFileBytes = 0
    /// Bytes currently queued in memory (streams + state + events), payload + topic.
    public var queuedBytes = 0
    /// Stream batches queued in memory.
    public var queuedStreamMessages = 0
    /// Events not yet acknowledged (queued or in flight).
    public var unacknowledgedEvents = 0
    /// Messages handed to libmosquitto, not yet confirmed.
    public var inflight = 0
    /// QoS ≥ 1 messages that were in flight (handed over, no PUBACK yet) when a connection died.
    /// They stay tracked: libmosquitto sends them again after the reconnect, and each ends as
    /// acknowledged — or, if the client is replaced or stopped first, as dropped
    /// (`connection_lost` / `shutdown`).
    public var retransmitted = 0
    /// The last publish or spool error, if any.
    public var lastError: String?

    public var produced: Int { topics.values.reduce(0) { $0 + $1.produced } }
    public var published: Int { topics.values.reduce(0) { $0 + $1.published } }
    public var acknowledged: Int { topics.values.reduce(0) { $0 + $1.acknowledged } }
    /// Drops summed over topics, by reason.
    public var dropped: [OutboxDropReason: Int] {
        var d: [OutboxDropReason: Int] = [:]
        for t in topics.values { for (r, n) in t.dropped { d[r, default: 0] += n } }
        return d
    }
    public init() {}
}
