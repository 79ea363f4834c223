#if canImport(Glibc)
import Glibc
#endif
import CMosquitto
import Logging
import Platform
import Synchronization

extension MQTTClient {
    // MARK: Observability and fault injection

    /// A snapshot of the counters.
    public var statistics: MQTTClientStatistics {
        let connections = connectionCount.load(ordering: .relaxed)
        return MQTTClientStatistics(
            published: publishedCount.load(ordering: .relaxed),
            publishFailures: publishFailureCount.load(ordering: .relaxed),
            acknowledged: acknowledgedCount.load(ordering: .relaxed),
            outstanding: handleState.withLock { $0.outstanding.count },
            received: receivedCount.load(ordering: .relaxed),
            connectAttempts: connectAttemptCount.load(ordering: .relaxed),
            connections: connections,
            reconnects: max(0, connections - 1),
            subscriptionsAcknowledged: subscribeAckCount.load(ordering: .relaxed),
            networkThreadWakeups: networkWakeupCount.load(ordering: .relaxed),
            writesLeftToNetworkThread: deferredWriteCount.load(ordering: .relaxed))
    }

    /// Cuts the TCP connection without sending DISCONNECT, as a crash, power loss or cable pull would:
    /// the broker publishes the will, and this client goes through its normal reconnect path.
    /// For tests and fault injection.
    /// - Returns: `false` if there was no open socket.
    /// The corresponding C function is `mosquitto_socket` (then `shutdown(2)`).
    @discardableResult
    public func dropConnectionAbruptly() -> Bool {
        handleState.withLock { st in
            guard st.alive else { return false }
            let fd = mosquitto_socket(handle)
            guard fd >= 0 else { return false }
            return shutdown(fd, Int32(SHUT_RDWR)) == 0
        }
    }
}
