import Platform

/// What the outbox needs of a connection: hand over a packet without writing it yet, write what
/// is queued, say whether it is connected, and report completions. `MQTTClient` is the real
/// transport; tests drive the outbox's acknowledgement races through a scripted one (as swift-nio
/// tests a handler against `EmbeddedChannel`), with no broker and no sleeps.
protocol OutboxTransport: AnyObject, Sendable {
    /// Whether the transport is connected right now (the outbox then follows its changes through
    /// the observer it installs with `setCompletionHandlers`).
    var isConnected: Bool { get }
    /// Queues one publish; returns its message id. See `MQTTClient.publish(topic:payload:qos:retain:flush:)`.
    func publish(topic: String, payload: UnsafeRawBufferPointer, qos: Int, retain: Bool, flush: Bool) throws(MQTTError) -> Int32
    /// Writes what was queued with `flush: false`.
    func flush(coalescing: Bool)
    /// Installs the outbox's callbacks: `acknowledged(mid)` (QoS 0 written, QoS 1 PUBACK),
    /// `refused(mid, reason)` (MQTT 5 reason ≥ 0x80) and `connectionChanged` (every connection
    /// change, beside whatever observer the transport's owner has). They may run on any thread,
    /// even inside `publish`.
    func setCompletionHandlers(acknowledged: @escaping @Sendable (Int32) -> Void,
                               refused: @escaping @Sendable (Int32, Int32) -> Void,
                               connectionChanged: @escaping @Sendable (MQTTConnectionState) -> Void)
}

extension MQTTClient: OutboxTransport {
    func setCompletionHandlers(acknowledged: @escaping @Sendable (Int32) -> Void,
                               refused: @escaping @Sendable (Int32, Int32) -> Void,
                               connectionChanged: @escaping @Sendable (MQTTConnectionState) -> Void) {
        callbacks.withLock {
            $0.onPublishAcknowledged = acknowledged
            $0.onPublishRefused = refused
            $0.outboxConnectionChange = connectionChanged
        }
    }
}

/// The outbox's time source, monotonic nanoseconds: queue ages, pauses, spool checks.
struct OutboxClock: Sendable {
    var nowNanos: @Sendable () -> UInt64

    /// `CLOCK_MONOTONIC`.
    static let monotonic = OutboxClock { MonotonicClock.nowNanos() }
}
