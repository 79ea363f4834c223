/// How the outbox treats a message when it cannot be delivered at once.
public enum OutboxClass: String, Sendable, CaseIterable {
    /// High-rate batches (raw sensor, motion): kept in memory within the byte and age bounds; when
    /// full, the oldest batch is dropped and counted (`full`), batches older than the age bound are
    /// dropped and counted (`expired`).
    case stream
    /// Latest-value state (`health`, `stats`): only the newest message per topic is kept; an older
    /// one still waiting is replaced (`superseded` — not a loss: the newer value carries the state).
    case state
    /// Events that must not be lost (activity changes, pedometer updates): written to the on-disk
    /// spool, published with QoS 1, removed only after the broker's PUBACK; replayed after a restart.
    case event
}

/// Why the outbox discarded a message.
public enum OutboxDropReason: String, Sendable, CaseIterable, Comparable {
    /// The stream buffer was at its byte bound; the oldest batch made room.
    case full
    /// A stream batch waited longer than the age bound.
    case expired
    /// libmosquitto refused it for good (invalid topic, payload too large, QoS not supported).
    case refused
    /// Handed to libmosquitto and then lost with its connection: a QoS 0 batch not yet written when
    /// the connection died (libmosquitto discards those on reconnect), or a stream batch of any QoS
    /// still unacknowledged on a client that was replaced (failover, broker changed by a reload).
    /// QoS ≥ 1 batches in flight across an ordinary reconnect are *not* dropped: libmosquitto sends
    /// them again (see `OutboxStatistics.retransmitted`).
    case connectionLost = "connection_lost"
    /// Still queued when the agent stopped (streams and state only; events stay in the spool).
    case shutdown
    /// The spool reached its byte bound; the oldest unacknowledged event was discarded (logged).
    case spoolFull = "spool_full"

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
