import Foundation
import Testing
import Messaging
import TestSupport

// MARK: Shared helpers for the reliability tests (fault, notify, reload, command, TLS)

/// A subscriber with a persistent session (clean_session false, QoS 1): the broker queues what is
/// published while it is away, and — with broker persistence — across broker restarts.
final class SessionSubscriber: @unchecked Sendable {
    let client: MQTTClient
    private let lock = NSLock()
    private var received: [MQTTMessage] = []

    init(url: String, pattern: String, id: String = "session-\(getpid())-\(UInt32.random(in: 0...UInt32.max))") throws {
        var o = MQTTConnectionOptions(address: try MQTTBrokerAddress(url: url), clientID: id, cleanSession: false)
        o.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(100), maxDelay: .milliseconds(500))
        client = try MQTTClient(options: o)
        client.onMessage = { [weak self] m in self?.append(m) }
        try client.subscribe(pattern, qos: 1)
        try client.start()
        let deadline = Date().addingTimeInterval(5)
        while client.statistics.subscriptionsAcknowledged < 1, Date() < deadline { usleep(10_000) }
    }

    deinit { client.disconnect(timeout: .milliseconds(500)) }

    private func append(_ m: MQTTMessage) { lock.withLock { received.append(m) } }
    var messages: [MQTTMessage] { lock.withLock { received } }
    func messages(on topic: String) -> [MQTTMessage] { messages.filter { $0.topic == topic } }
    func json(on topic: String) -> [[String: Any]] {
        messages(on: topic).compactMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }
    }
}

/// One synthetic event (`debug.synthetic_events_per_minute`): unique by agent run and sequence.
struct SyntheticEvent: Hashable, Comparable {
    var run: String
    var seq: Int
    static func < (a: Self, b: Self) -> Bool { (a.run, a.seq) < (b.run, b.seq) }
}

enum Reliability {
    static func events(_ sub: SessionSubscriber, prefix: String) -> [SyntheticEvent] {
        sub.json(on: prefix + "/events/synthetic").compactMap { j in
            guard let run = j["run"] as? String, let seq = j["seq"] as? Int else { return nil }
            return SyntheticEvent(run: run, seq: seq)
        }
    }

    /// The per-topic outbox counters of a `stats` message.
    static func outboxTopic(_ stats: [String: Any], _ name: String) -> [String: Any]? {
        ((stats["outbox"] as? [String: Any])?["topics"] as? [[String: Any]])?.first { $0["name"] as? String == name }
    }

    static func droppedTotal(_ topic: [String: Any]?) -> Int {
        ((topic?["dropped"] as? [String: Int]) ?? [:]).values.reduce(0, +)
    }

    /// One stream's accounting: the agent's counters from its last `stats`, and the distinct
    /// batches (by `seq`) the subscriber received on `sensor/<stream>`.
    struct StreamAccount: CustomStringConvertible {
        var produced: Int
        var acknowledged: Int
        var dropped: [String: Int]
        var delivered: Set<Int>
        var droppedTotal: Int { dropped.values.reduce(0, +) }
        var description: String {
            "produced=\(produced) delivered=\(delivered.count) dropped=\(droppedTotal) \(dropped.filter { $0.value > 0 }) acknowledged=\(acknowledged)"
        }
    }

    static func account(_ stats: [String: Any], _ sub: SessionSubscriber, prefix: String, stream: String) -> StreamAccount? {
        guard let t = outboxTopic(stats, stream), let produced = t["produced"] as? Int,
              let acknowledged = t["acknowledged"] as? Int else { return nil }
        let delivered = Set(sub.json(on: prefix + "/sensor/" + stream).compactMap { $0["seq"] as? Int })
        return StreamAccount(produced: produced, acknowledged: acknowledged,
                             dropped: (t["dropped"] as? [String: Int]) ?? [:], delivered: delivered)
    }

    /// Resident set size of `pid` in kB (VmRSS), 0 when unavailable.
    static func rssKB(_ pid: Int32) -> Int {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in s.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        }
        return 0
    }

    static func tempDirectory(_ tag: String) throws -> String {
        let d = NSTemporaryDirectory() + "edgemotion-\(tag)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    /// A broker that keeps sessions and queued QoS 1 messages across a graceful restart.
    static func persistentBroker(_ dir: String) throws -> MosquittoBroker {
        try MosquittoBroker.start(extraConfig: "persistence true\npersistence_location \(dir)/\nmax_queued_messages 100000\n")
    }

    static func config(id: String, stateDirectory: String, extra: String = "") -> String {
        """
        device: { id: \(id) }
        source:
          type: simulator
          rate: 200
          simulator: { scenario: walking, seed: 3, real_time: true }
        streams:
          accelerometer: { rate: 100, publish_rate: 10, qos: 1 }
          gyroscope: { enabled: false }
          magnetometer: { enabled: false }
          motion: { rate: 50, publish_rate: 10, qos: 0 }
        state_directory: \(stateDirectory)
        process: { stats_interval_s: 1, stop_timeout_s: 4 }
        \(extra)
        """
    }
}


extension SessionSubscriber {
    /// Waits (bounded) until the agent has announced `online` on `topic` more than `before` times:
    /// it reconnected after a broker restart. Backoff has full jitter, so a fixed sleep is not
    /// enough on a loaded machine.
    func waitForOnline(_ topic: String, moreThan before: Int, timeout: Double = 60) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if messages(on: topic).filter({ $0.payloadString == "online" }).count > before { return true }
            usleep(100_000)
        }
        return false
    }

    /// Polls `condition` every 100 ms until it holds or `timeout` (s) passes.
    func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(100_000)
        }
        return condition()
    }

    func onlineCount(_ topic: String) -> Int { messages(on: topic).filter { $0.payloadString == "online" }.count }

    /// Waits (bounded) until no message has arrived for `quiet` seconds: the broker has handed
    /// over everything it queued for this session.
    func waitForQuiet(_ quiet: Double = 1.5, timeout: Double = 20) {
        let deadline = Date().addingTimeInterval(timeout)
        var count = messages.count
        var since = Date()
        while Date() < deadline {
            usleep(100_000)
            let now = messages.count
            if now != count { count = now; since = Date() } else if Date().timeIntervalSince(since) >= quiet { return }
        }
    }
}
