import Platform
/// Connection life cycle as reported to `MQTTClient.onConnectionChange` (called on the network thread).
public enum MQTTConnectionState: Sendable, Equatable, CustomStringConvertible {
    /// A TCP connect + CONNECT is under way; `attempt` counts consecutive attempts since the last
    /// stable connection, starting at 1.
    case connecting(attempt: Int)
    /// CONNACK 0 received; publishes flow.
    case connected
    /// The attempt failed (refused TCP connect, DNS, TLS, CONNACK ≠ 0 with the code explained, timeout).
    /// The client backs off for `retryIn` and tries again.
    case connectionFailed(MQTTError, retryIn: Duration)
    /// An established connection was lost; the client backs off for `retryIn` and reconnects.
    case connectionLost(MQTTError, retryIn: Duration)
    /// `disconnect(timeout:)` finished; the client will not reconnect.
    case stopped

    public var isConnected: Bool { self == .connected }

    public var description: String {
        switch self {
        case .connecting(let n): "connecting (attempt \(n))"
        case .connected: "connected"
        case .connectionFailed(let e, let d): "connection failed: \(e); retrying in \(d.millisecondsText)"
        case .connectionLost(let e, let d): "connection lost: \(e); reconnecting in \(d.millisecondsText)"
        case .stopped: "stopped"
        }
    }
}

/// Counters kept by one `MQTTClient`, read as a consistent-enough snapshot (each field is atomic).
public struct MQTTClientStatistics: Sendable, Equatable {
    /// Successful `publish` calls (accepted by libmosquitto, any QoS).
    public var published: Int
    /// `publish` calls that failed (not connected for QoS 0, invalid topic, …).
    public var publishFailures: Int
    /// `on_publish` callbacks: QoS 0 written to the socket, QoS 1 PUBACK, QoS 2 PUBCOMP.
    public var acknowledged: Int
    /// QoS ≥ 1 publishes not yet acknowledged.
    public var outstanding: Int
    /// Messages delivered to `onMessage`.
    public var received: Int
    /// Connection attempts (TCP connect + CONNECT), including the first.
    public var connectAttempts: Int
    /// Attempts that reached CONNACK 0.
    public var connections: Int
    /// Successful connections after the first one (i.e. recoveries after a loss).
    public var reconnects: Int
    /// SUBACKs received (every subscription is renewed on each connection).
    public var subscriptionsAcknowledged: Int
    /// Times the network thread woke from `poll(2)` (plain TCP): incoming packets, unfinished
    /// writes, keepalive ticks. Publishing alone does not wake it.
    public var networkThreadWakeups: Int
    /// Writes a publishing thread could not finish (socket buffer full, or the write failed) and
    /// left to the network thread.
    public var writesLeftToNetworkThread: Int

    public init(published: Int = 0, publishFailures: Int = 0, acknowledged: Int = 0, outstanding: Int = 0,
                received: Int = 0, connectAttempts: Int = 0, connections: Int = 0, reconnects: Int = 0,
                subscriptionsAcknowledged: Int = 0, networkThreadWakeups: Int = 0, writesLeftToNetworkThread: Int = 0) {
        self.networkThreadWakeups = networkThreadWakeups
        self.writesLeftToNetworkThread = writesLeftToNetworkThread
        self.published = published
        self.publishFailures = publishFailures
        self.acknowledged = acknowledged
        self.outstanding = outstanding
        self.received = received
        self.connectAttempts = connectAttempts
        self.connections = connections
        self.reconnects = reconnects
        self.subscriptionsAcknowledged = subscriptionsAcknowledged
    }
}

extension Duration {
    /// Whole milliseconds, e.g. `1250 ms`.
    var millisecondsText: String { "\(milliseconds) ms" }

}
