import Foundation
import Messaging

/// A real libmosquitto subscriber (an `MQTTClient`) that records every message it receives, for
/// asserting what a component published, including the retain flag of stored retained messages.
public final class TestSubscriber: @unchecked Sendable {
    public let client: MQTTClient
    private let lock = NSCondition()
    private var received: [MQTTMessage] = []

    /// Connects to `url`, subscribes to `patterns`, and waits until every SUBACK arrived.
    /// - Throws: `MQTTError` for bad URLs / patterns, `.timeout` when the broker does not answer in time.
    public init(url: String, patterns: [String], qos: Int = 1, clientID: String? = nil,
                timeout: Duration = .seconds(5)) throws {
        let id = clientID ?? "test-sub-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var options = MQTTConnectionOptions(address: try MQTTBrokerAddress(url: url), clientID: id)
        options.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(100), maxDelay: .seconds(1))
        client = try MQTTClient(options: options)
        client.onMessage = { [weak self] m in self?.record(m) }
        for p in patterns { try client.subscribe(p, qos: qos) }
        try client.start()
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        while client.statistics.subscriptionsAcknowledged < patterns.count {
            if Date() > deadline {
                client.disconnect(timeout: .milliseconds(200))
                throw MQTTError(.timeout, context: url, detail: "subscriber \(id) got \(client.statistics.subscriptionsAcknowledged) of \(patterns.count) SUBACKs")
            }
            usleep(5_000)
        }
    }

    deinit { client.disconnect(timeout: .milliseconds(500)) }

    private func record(_ m: MQTTMessage) {
        lock.lock()
        received.append(m)
        lock.broadcast()
        lock.unlock()
    }

    /// Every message received so far, in arrival order.
    public var messages: [MQTTMessage] {
        lock.lock(); defer { lock.unlock() }
        return received
    }

    /// Messages received on exactly `topic`.
    public func messages(on topic: String) -> [MQTTMessage] { messages.filter { $0.topic == topic } }

    /// Waits until at least `count` messages arrived (on `topic`, or on any topic when nil).
    /// - Returns: the matching messages (possibly fewer than `count` after the timeout).
    @discardableResult
    public func waitFor(count: Int, topic: String? = nil, timeout: Duration = .seconds(5)) -> [MQTTMessage] {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let deadline = Date().addingTimeInterval(seconds)
        lock.lock(); defer { lock.unlock() }
        while true {
            let matching = topic.map { t in received.filter { $0.topic == t } } ?? received
            if matching.count >= count || !lock.wait(until: deadline) { return matching }
        }
    }

    /// Waits until at least `count` received messages satisfy `predicate` (e.g. a topic suffix),
    /// so unrelated traffic (periodic snapshots, the request itself) cannot end the wait early.
    /// - Returns: the matching messages (possibly fewer than `count` after the timeout).
    @discardableResult
    public func waitFor(count: Int, timeout: Duration = .seconds(5), where predicate: (MQTTMessage) -> Bool) -> [MQTTMessage] {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let deadline = Date().addingTimeInterval(seconds)
        lock.lock(); defer { lock.unlock() }
        while true {
            let matching = received.filter(predicate)
            if matching.count >= count || !lock.wait(until: deadline) { return matching }
        }
    }

    /// Forgets the messages received so far.
    public func clear() {
        lock.lock(); received.removeAll(); lock.unlock()
    }

    /// Disconnects (bounded).
    public func stop() { client.disconnect(timeout: .seconds(1)) }
}
