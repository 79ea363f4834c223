#if canImport(Glibc)
import Glibc
#endif
import Messaging
import MotionCore
import Synchronization

/// Subscribes to agent batches and measures, per sample, the time from the sample's own
/// timestamp (`t0_mono_ns` + `dt_us`, `CLOCK_MONOTONIC` on the agent) to its arrival here
/// (`CLOCK_MONOTONIC` read in libmosquitto's message callback), plus completeness per topic
/// (gaps in `seq`). Both ends share the machine's monotonic clock, so loopback latency is exact.
final class LatencySubscriber: @unchecked Sendable {
    struct TopicStats {
        var messages = 0
        var samples = 0
        var firstSeq: UInt64 = 0
        var lastSeq: UInt64 = 0
        var missing: UInt64 = 0
        var firstArrival: UInt64 = 0
        var lastArrival: UInt64 = 0
    }

    private let lock = Mutex<State>(State())
    private let warmUpNanos: UInt64
    private let started = MonotonicClock.nowNanos()

    struct State {
        var topics: [String: TopicStats] = [:]
        var latencies: [UInt64] = []
    }

    init(warmUpSeconds: Double) {
        warmUpNanos = UInt64(warmUpSeconds * 1e9)
        lock.withLock { $0.latencies.reserveCapacity(4_000_000) }
    }

    func receive(_ m: MQTTMessage) {
        let now = MonotonicClock.nowNanos()
        guard m.payload.first == UInt8(ascii: "{") else { return }  // status text, not a batch
        let p = m.payload
        let seq = Self.integer(after: "\"seq\":", in: p)
        let n = Self.integer(after: "\"n\":", in: p) ?? 0
        let t0 = Self.integer(after: "\"t0_mono_ns\":", in: p)
        var lat: [UInt64] = []
        if let t0, now &- started > warmUpNanos, let offsets = Self.integers(after: "\"dt_us\":[", in: p) {
            lat.reserveCapacity(offsets.count)
            for dt in offsets {
                let t = t0 &+ dt &* 1000
                lat.append(now > t ? now - t : 0)
            }
        }
        lock.withLock { s in
            var t = s.topics[m.topic] ?? TopicStats()
            if let seq {
                if t.messages == 0 { t.firstSeq = seq; t.firstArrival = now }
                else if seq > t.lastSeq &+ 1 { t.missing &+= seq - t.lastSeq - 1 }
                t.lastSeq = seq
            }
            t.messages += 1
            t.samples += Int(n)
            t.lastArrival = now
            s.topics[m.topic] = t
            s.latencies.append(contentsOf: lat)
        }
    }

    var snapshot: State { lock.withLock { $0 } }

    // MARK: Minimal parsing of the agent's own JSON (flat, known keys).

    static func find(_ key: StaticString, in p: [UInt8]) -> Int? {
        key.withUTF8Buffer { k -> Int? in
            guard p.count >= k.count else { return nil }
            var i = 0
            outer: while i <= p.count - k.count {
                for j in 0..<k.count where p[i + j] != k[j] { i += 1; continue outer }
                return i + k.count
            }
            return nil
        }
    }

    static func integer(after key: StaticString, in p: [UInt8]) -> UInt64? {
        guard var i = find(key, in: p) else { return nil }
        var v: UInt64 = 0
        var any = false
        while i < p.count, p[i] >= 48, p[i] <= 57 { v = v &* 10 &+ UInt64(p[i] - 48); i += 1; any = true }
        return any ? v : nil
    }

    static func integers(after key: StaticString, in p: [UInt8]) -> [UInt64]? {
        guard var i = find(key, in: p) else { return nil }
        var out: [UInt64] = []
        var v: UInt64 = 0
        var any = false
        while i < p.count {
            let c = p[i]
            if c >= 48, c <= 57 { v = v &* 10 &+ UInt64(c - 48); any = true }
            else if c == UInt8(ascii: ",") || c == UInt8(ascii: "]") {
                if any { out.append(v) }
                v = 0; any = false
                if c == UInt8(ascii: "]") { break }
            }
            i += 1
        }
        return out
    }
}

/// Percentiles of a latency sample, ns.
struct LatencySummary {
    var count: Int
    var p50: UInt64, p90: UInt64, p99: UInt64, p999: UInt64, max: UInt64
    /// (upper bound µs, count) log-spaced buckets.
    var histogram: [(Double, Int)]

    init(_ values: [UInt64]) {
        let s = values.sorted()
        count = s.count
        func q(_ f: Double) -> UInt64 { s.isEmpty ? 0 : s[Swift.min(s.count - 1, Int((Double(s.count) * f).rounded(.down)))] }
        p50 = q(0.5); p90 = q(0.9); p99 = q(0.99); p999 = q(0.999); max = s.last ?? 0
        let bounds: [Double] = [50, 100, 200, 300, 500, 750, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1e9]
        var h: [(Double, Int)] = bounds.map { ($0, 0) }
        var k = 0
        for v in s {
            let us = Double(v) / 1000
            while k < bounds.count - 1, us > bounds[k] { k += 1 }
            h[k].1 += 1
        }
        histogram = h.filter { $0.1 > 0 }
    }
}

/// `edgemotion-bench subscribe`: runs a `LatencySubscriber` for a while and prints JSON.
enum SubscribeCommand {
    static func run(url: String, topics: [String], seconds: Double, warmUp: Double, readyFile: String?) throws -> String {
        let sub = LatencySubscriber(warmUpSeconds: warmUp)
        var options = MQTTConnectionOptions(address: try MQTTBrokerAddress(url: url), clientID: "bench-sub-\(getpid())")
        options.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(100), maxDelay: .seconds(1))
        let client = try MQTTClient(options: options)
        client.onMessage = { m in sub.receive(m) }
        for t in topics { try client.subscribe(t, qos: 0) }
        try client.start()
        let deadline = monotonicNanos() + 5_000_000_000
        while client.statistics.subscriptionsAcknowledged < topics.count, monotonicNanos() < deadline { usleep(2_000) }
        if let readyFile { _ = fopen(readyFile, "w").map { fclose($0) } }
        let end = monotonicNanos() + UInt64(seconds * 1e9)
        while monotonicNanos() < end { usleep(20_000) }
        client.disconnect(timeout: .milliseconds(500))
        let s = sub.snapshot
        let lat = LatencySummary(s.latencies)
        var j = JSONWriter(capacity: 1 << 20)
        j.beginObject()
        j.key("latency_us"); j.beginObject()
        j.field("count", lat.count)
        j.field("p50", Double(lat.p50) / 1000, fractionDigits: 1)
        j.field("p90", Double(lat.p90) / 1000, fractionDigits: 1)
        j.field("p99", Double(lat.p99) / 1000, fractionDigits: 1)
        j.field("p999", Double(lat.p999) / 1000, fractionDigits: 1)
        j.field("max", Double(lat.max) / 1000, fractionDigits: 1)
        j.key("histogram"); j.beginArray()
        for (b, c) in lat.histogram { j.beginArray(); j.value(b, fractionDigits: 0); j.value(c); j.endArray() }
        j.endArray()
        j.endObject()
        j.key("topics"); j.beginArray()
        for (name, t) in s.topics.sorted(by: { $0.key < $1.key }) {
            j.beginObject()
            j.field("topic", name)
            j.field("messages", t.messages)
            j.field("samples", t.samples)
            j.field("first_seq", t.firstSeq)
            j.field("last_seq", t.lastSeq)
            j.field("missing", t.missing)
            j.field("seconds", Double(t.lastArrival &- t.firstArrival) / 1e9, fractionDigits: 3)
            j.endObject()
        }
        j.endArray()
        j.endObject()
        return String(decoding: j.buffer, as: UTF8.self)
    }
}
