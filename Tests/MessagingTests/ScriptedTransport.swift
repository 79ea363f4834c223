import Synchronization
import Testing
import TestSupport
@testable import Messaging

/// A transport the test scripts: it records every publish, can fail the next one, and can run a
/// hook *inside* `publish` — where the real network thread can acknowledge a QoS 0 write, a
/// connection can drop, or a reload can attach a new client — before the outbox records the
/// message as in flight.
final class ScriptedTransport: OutboxTransport {
    struct Published: Equatable { var mid: Int32; var topic: String; var qos: Int }
    private struct Script {
        var connected = true
        var nextMid: Int32 = 1
        var published: [Published] = []
        var flushes = 0
        var failNext: MQTTError?
        var duringPublish: (@Sendable (Int32) -> Void)?
        var acknowledged: (@Sendable (Int32) -> Void)?
        var refused: (@Sendable (Int32, Int32) -> Void)?
        var connectionChanged: (@Sendable (MQTTConnectionState) -> Void)?
    }
    private let script = Mutex(Script())

    init(connected: Bool = true) { script.withLock { $0.connected = connected } }

    var isConnected: Bool { script.withLock { $0.connected } }
    var published: [Published] { script.withLock { $0.published } }

    /// The next `publish` throws `error` (once).
    func failNextPublish(with error: MQTTError) { script.withLock { $0.failNext = error } }
    /// Runs `hook(mid)` inside every later `publish`, after the message id is assigned.
    func duringPublish(_ hook: (@Sendable (Int32) -> Void)?) { script.withLock { $0.duringPublish = hook } }
    /// The broker's PUBACK (or the QoS 0 write) for `mid`.
    func acknowledge(_ mid: Int32) { script.withLock { $0.acknowledged }?(mid) }
    /// An MQTT 5 refusal of `mid`.
    func refuse(_ mid: Int32, reason: Int32) { script.withLock { $0.refused }?(mid, reason) }
    /// The connection changes (as the network thread reports it): `isConnected` follows, and the
    /// observer the outbox installed is told; nothing else forwards it.
    func change(_ state: MQTTConnectionState) {
        let observer = script.withLock { s -> (@Sendable (MQTTConnectionState) -> Void)? in
            if case .connected = state { s.connected = true } else { s.connected = false }
            return s.connectionChanged
        }
        observer?(state)
    }

    func publish(topic: String, payload: UnsafeRawBufferPointer, qos: Int, retain: Bool, flush: Bool) throws(MQTTError) -> Int32 {
        let (mid, hook, failure) = script.withLock { s -> (Int32, (@Sendable (Int32) -> Void)?, MQTTError?) in
            if let f = s.failNext { s.failNext = nil; return (0, nil, f) }
            let mid = s.nextMid
            s.nextMid += 1
            s.published.append(Published(mid: mid, topic: topic, qos: qos))
            return (mid, s.duringPublish, nil)
        }
        if let failure { throw failure }
        hook?(mid)
        return mid
    }

    func flush(coalescing: Bool) { script.withLock { $0.flushes += 1 } }

    func setCompletionHandlers(acknowledged: @escaping @Sendable (Int32) -> Void, refused: @escaping @Sendable (Int32, Int32) -> Void,
                               connectionChanged: @escaping @Sendable (MQTTConnectionState) -> Void) {
        script.withLock { $0.acknowledged = acknowledged; $0.refused = refused; $0.connectionChanged = connectionChanged }
    }
}

/// Monotonic time the test moves by hand.
final class ManualClock: Sendable {
    private let nanos = Atomic<UInt64>(1_000_000_000)
    var clock: OutboxClock { OutboxClock { [self] in nanos.load(ordering: .relaxed) } }
    func advance(milliseconds: UInt64) { nanos.add(milliseconds * 1_000_000, ordering: .relaxed) }
}

