import EdgeMotion
import Messaging
import MotionCore

#if canImport(Glibc)
import Glibc
#endif

/// The `stats` and retained `health` documents (docs/topics.md describes every field).
enum StatsPayload {
    static func dropKey(_ r: OutboxDropReason) -> StaticString {
        switch r {
        case .full: "full"
        case .expired: "expired"
        case .refused: "refused"
        case .connectionLost: "connection_lost"
        case .shutdown: "shutdown"
        case .spoolFull: "spool_full"
        }
    }

    static func drops(_ w: inout JSONWriter, _ d: [OutboxDropReason: Int]) {
        w.beginObject()
        for r in OutboxDropReason.allCases { w.field(dropKey(r), d[r] ?? 0) }
        w.endObject()
    }

    static func stats(pipeline s: PipelineStatistics, outbox o: OutboxStatistics, mqtt m: MQTTClientStatistics,
                      reconnects: Int, refusals: MQTTPublishRefusals = MQTTPublishRefusals()) -> [UInt8] {
        var w = JSONWriter(capacity: 4096)
        w.beginObject()
        w.field("time_utc_us", Int64(MonotonicClock.realtimeNanos() / 1000))
        w.field("samples_acquired", s.samplesAcquired)
        w.field("samples_processed", s.samplesProcessed)
        w.field("ring_drops", s.ringDrops)
        w.field("source_gaps", s.sourceGaps)
        w.field("source_errors", s.sourceErrors)
        w.field("source_retries", s.sourceRetries)
        w.field("ring_max_depth", s.maximumRingDepth)
        // Per stream: produced (batches made), published (acknowledged: QoS 0 written, QoS 1 PUBACK),
        // dropped (all reasons). produced = published + dropped + still queued.
        let names = MQTTPublisher.streamNames
        for (key, pick) in [("produced", \OutboxTopicCounts.produced), ("published", \OutboxTopicCounts.acknowledged),
                            ("dropped", \OutboxTopicCounts.droppedTotal)] as [(StaticString, KeyPath<OutboxTopicCounts, Int>)] {
            w.key(key)
            w.beginObject()
            w.field("accelerometer", o.topics[names[0]]?[keyPath: pick] ?? 0)
            w.field("gyroscope", o.topics[names[1]]?[keyPath: pick] ?? 0)
            w.field("magnetometer", o.topics[names[2]]?[keyPath: pick] ?? 0)
            w.field("motion", o.topics[names[3]]?[keyPath: pick] ?? 0)
            w.endObject()
        }
        w.field("mqtt_reconnects", reconnects)
        w.field("mqtt_acknowledged", m.acknowledged)
        // MQTT 5 refusals (reason ≥ 0x80) of QoS ≥ 1 publishes, per topic, whoever published them.
        w.key("mqtt_refused")
        w.beginArray()
        for topic in refusals.byTopic.keys.sorted() {
            let r = refusals.byTopic[topic]!
            w.beginObject()
            w.field("topic", topic)
            w.field("refused", r.count)
            w.field("reason", Int(r.reason))
            w.endObject()
        }
        w.endArray()
        w.key("outbox")
        w.beginObject()
        w.field("produced", o.produced)
        w.field("published", o.published)
        w.field("acknowledged", o.acknowledged)
        w.key("dropped")
        drops(&w, o.dropped)
        w.field("spooled", o.spooled)
        w.field("replayed", o.replayed)
        w.field("spool_corrupt_records", o.spoolCorruptRecords)
        w.field("spool_write_failures", o.spoolWriteFailures)
        w.field("spool_recreated", o.spoolRecreations)
        w.field("spool_bytes", o.spoolFileBytes)
        w.field("queued_bytes", o.queuedBytes)
        w.field("queued_stream_messages", o.queuedStreamMessages)
        w.field("unacknowledged_events", o.unacknowledgedEvents)
        w.field("inflight", o.inflight)
        w.field("retransmitted", o.retransmitted)
        w.key("topics")
        w.beginArray()
        for name in o.topics.keys.sorted() {
            let t = o.topics[name]!
            w.beginObject()
            w.field("name", name)
            w.field("produced", t.produced)
            w.field("published", t.published)
            w.field("acknowledged", t.acknowledged)
            w.key("dropped")
            drops(&w, t.dropped)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        w.field("rss_kb", residentKilobytes())
        w.endObject()
        return w.buffer
    }

    static func health(sourceFailing: Bool, sourceError: String?, connected: Bool, lastError: String?,
                       lastErrorNanos: UInt64?, outbox o: OutboxStatistics, reconnects: Int,
                       broker: String, failovers: Int, reloadRejected: (text: String, nanos: UInt64)? = nil,
                       storageProblems: [String] = [],
                       activityInput: (code: String, message: String?)? = nil, activityModel: String? = nil) -> [UInt8] {
        var w = JSONWriter(capacity: 1024)
        w.beginObject()
        let activityWithheld = activityInput.map { $0.message != nil } ?? false
        let degraded = sourceFailing || !storageProblems.isEmpty || activityWithheld
        w.field("status", degraded ? "degraded" as StaticString : "ok" as StaticString)
        w.field("source", sourceFailing ? "failing" as StaticString : "ok" as StaticString)
        if let sourceError { w.field("source_error", sourceError) }
        // Any store (spool, activity history, recorder) that cannot write right now, and why.
        w.field("storage", storageProblems.isEmpty ? "ok" as StaticString : "failing" as StaticString)
        if !storageProblems.isEmpty { w.field("storage_error", storageProblems.joined(separator: "; ")) }
        // Activity detection's input (when activity runs): "ok", or the problem's code
        // (rate_too_low, no_gravity) with the sentence saying what to change.
        if let a = activityInput {
            w.field("activity_input", a.code)
            if let m = a.message { w.field("activity_input_error", m) }
        }
        // Which activity model decides: "main", or "low_rate" for input below 16 Hz.
        if let activityModel { w.field("activity_model", activityModel) }
        w.field("mqtt", connected ? "connected" as StaticString : "disconnected" as StaticString)
        if let lastError {
            w.field("last_error", lastError)
            if let t = lastErrorNanos { w.field("last_error_time_utc_us", Int64(t / 1000)) }
        }
        if let r = reloadRejected {
            // Until the next good reload: the file on disk is not what runs.
            w.field("reload_rejected", r.text)
            w.field("reload_rejected_time_utc_us", Int64(r.nanos / 1000))
        }
        w.field("broker", broker)
        w.field("mqtt_reconnects", reconnects)
        w.field("mqtt_failovers", failovers)
        w.field("outbox_bytes", o.queuedBytes)
        w.field("unacknowledged_events", o.unacknowledgedEvents)
        w.field("spool_corrupt_records", o.spoolCorruptRecords)
        w.field("dropped", o.dropped.values.reduce(0, +))
        w.key("dropped_by_reason")
        drops(&w, o.dropped)
        w.field("time_utc_us", Int64(MonotonicClock.realtimeNanos() / 1000))
        w.endObject()
        return w.buffer
    }

    /// Resident set size of this process, kB (from /proc/self/statm), 0 when unavailable.
    static func residentKilobytes() -> Int {
        let fd = open("/proc/self/statm", O_RDONLY)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: 128)
        let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, 127) }
        guard n > 0 else { return 0 }
        let fields = buf[0..<n].split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
    }
}
