import Dispatch
import EdgeMotion
import Logging
import Messaging
import MotionCore
import Synchronization

/// Answers history queries over MQTT, for any subscriber: activity and pedometer history (Core
/// Motion's `queryActivityStarting(from:to:)`, `queryPedometerData(from:to:)`) and the sensor
/// recorder's files (`CMSensorRecorder.accelerometerData(from:to:)`).
///
/// Requests arrive on `<prefix>/query/activity`, `<prefix>/query/pedometer` and
/// `<prefix>/query/recordings` (see `HistoryQuery` for the JSON). The answer goes to the MQTT 5
/// response topic with the request's correlation data, else to the request's `reply_to`, else to
/// `<request topic>/response`. Large ranges are answered a page at a time (`page`, `next_page`).
/// Queries never run on the MQTT network thread: history queries on one serial queue, recording
/// queries (file reads) on another at utility priority, at most `maximumPendingRecordingQueries`
/// waiting (more are refused with a "busy" error) so a burst of requests cannot pile up reads.
/// A kind whose data is off on this device (no `Source` for it) is answered with an error saying so.
final class HistoryQueryResponder: Sendable {
    /// Where the answers come from. A closure left at its default answers that the feature is off.
    struct Source: Sendable {
        /// Activity changes that started in `[from, to)` (UTC s): one page, and the next page's number.
        var activities: @Sendable (_ from: Double, _ to: Double, _ page: Int, _ pageSize: Int) throws -> ([MotionActivity], Int?) = { _, _, _, _ in
            throw Source.activityOff
        }
        /// Pedometer intervals in `[from, to)`: one page, the next page's number, and the range's totals.
        var pedometer: @Sendable (_ from: Double, _ to: Double, _ page: Int, _ pageSize: Int) throws -> ([PedometerRecord], Int?, PedometerRecord) = { _, _, _, _ in
            throw Source.activityOff
        }
        /// Recording files with samples in `[from, to)` (UTC s): one page, and the next page's number.
        var recordingFiles: @Sendable (_ from: Double, _ to: Double, _ page: Int, _ pageSize: Int) throws -> ([RecordingFileInfo], Int?) = { _, _, _, _ in
            throw Source.recorderOff
        }
        /// Recorded samples in `[from, to)` (UTC s): one page, and the next page's number.
        var recordingSamples: @Sendable (_ from: Double, _ to: Double, _ page: Int, _ pageSize: Int) throws -> ([RecordedSample], Int?) = { _, _, _, _ in
            throw Source.recorderOff
        }

        static let activityOff = HistoryQuery.Problem(
            field: "activity", message: "activity history is off on this device (activity.enabled is false, the source has no accelerometer, or the history store could not be opened: see the agent's log)")
        static let recorderOff = HistoryQuery.Problem(
            field: "recorder", message: "the sensor recorder is off on this device: set recorder.enabled: true in the configuration and restart the agent")

        /// Queries the SQLite history store (and, when given, the recordings).
        static func store(_ store: ActivityHistoryStore, recordings: RecordingCatalog? = nil) -> Source {
            var s = recordings.map(Source.recordings) ?? Source()
            s.activities = { from, to, page, size in
                let p = try store.activities(from: from, to: to, page: page, pageSize: size)
                return (p.items.map(\.activity), p.nextPage)
            }
            s.pedometer = { from, to, page, size in
                let p = try store.pedometer(from: from, to: to, page: page, pageSize: size)
                return (p.items, p.nextPage, try store.pedometerTotals(from: from, to: to))
            }
            return s
        }

        /// Queries the recorder's files (activity history off).
        static func recordings(_ catalog: RecordingCatalog) -> Source {
            var s = Source()
            s.recordingFiles = { from, to, page, size in
                let files = catalog.files(fromUTCNanos: nanos(from), toUTCNanos: nanos(to))
                let start = min(files.count, page * size)
                let end = min(files.count, start + size)
                return (Array(files[start..<end]), end < files.count ? page + 1 : nil)
            }
            s.recordingSamples = { from, to, page, size in
                let r = catalog.samples(fromUTCNanos: nanos(from), toUTCNanos: nanos(to), skip: page * size, limit: size)
                return (r.samples, r.more ? page + 1 : nil)
            }
            return s
        }

        /// UTC seconds → ns (ranges are checked by `HistoryQuery`: finite, ≥ 0, ≤ 31 days long).
        private static func nanos(_ seconds: Double) -> Int64 {
            Int64(max(0, min(seconds, 9e9)) * 1e9)
        }
    }

    /// Recording queries waiting or running at most; more are refused as busy.
    static let maximumPendingRecordingQueries = 4

    let activityTopic: String
    let pedometerTopic: String
    let recordingsTopic: String
    private let client: MQTTClient
    private let source: Source
    private let queue = DispatchQueue(label: "edgemotion.history-queries")
    private let recordingQueue = DispatchQueue(label: "edgemotion.recording-queries", qos: .utility)
    private let pendingRecordingQueries = Atomic<Int>(0)
    private let log = Logger(label: "query")

    private let policy: ReplyTopicPolicy
    private let requestLog: RequestLog

    /// - Parameters:
    ///   - policy: where answers may go (`reply_to`, the response topic); refused: no answer.
    ///   - requestLog: bounded logging of refused requests, shared across rebuilt responders.
    init(client: MQTTClient, topics: TopicLayout, source: Source, policy: ReplyTopicPolicy? = nil, requestLog: RequestLog = RequestLog()) {
        self.client = client
        self.source = source
        self.policy = policy ?? ReplyTopicPolicy(prefix: topics.prefix)
        self.requestLog = requestLog
        activityTopic = topics.query("activity")
        pedometerTopic = topics.query("pedometer")
        recordingsTopic = topics.query("recordings")
    }

    /// Subscribes to the request topics (renewed on every reconnection by the client).
    func subscribe() throws(MQTTError) {
        try client.subscribe(activityTopic, qos: 1)
        try client.subscribe(pedometerTopic, qos: 1)
        try client.subscribe(recordingsTopic, qos: 1)
    }

    /// Takes the message if it is a history request; returns whether it was one. Call from
    /// `MQTTClient.onMessage`; the work happens on the responder's queue.
    @discardableResult
    func handle(_ message: MQTTMessage) -> Bool {
        let kind: HistoryQuery.Kind
        switch message.topic {
        case activityTopic: kind = .activity
        case pedometerTopic: kind = .pedometer
        case recordingsTopic: kind = .recordings
        default: return false
        }
        guard kind == .recordings else {
            queue.async { [self] in answer(message, kind: kind) }
            return true
        }
        let pending = pendingRecordingQueries.wrappingAdd(1, ordering: .relaxed).newValue
        guard pending <= Self.maximumPendingRecordingQueries else {
            pendingRecordingQueries.wrappingSubtract(1, ordering: .relaxed)
            queue.async { [self] in
                answer(message, kind: kind, refusal: HistoryQuery.Problem(
                    field: "recorder", message: "busy: \(Self.maximumPendingRecordingQueries) recording queries are already waiting; ask again when their answers arrived"))
            }
            return true
        }
        recordingQueue.async { [self] in
            answer(message, kind: kind)
            pendingRecordingQueries.wrappingSubtract(1, ordering: .relaxed)
        }
        return true
    }

    /// Parses, answers and publishes one request; `refusal` answers it with that error instead.
    private func answer(_ message: MQTTMessage, kind: HistoryQuery.Kind, refusal: HistoryQuery.Problem? = nil) {
        let now = Double(MonotonicClock.realtimeNanos()) * 1e-9
        let envelope = HistoryQuery.envelope(message.payload)
        let replyTopic = message.responseTopic ?? envelope.replyTo ?? TopicLayout.defaultResponse(to: message.topic)
        if let why = policy.problem(replyTopic) {
            requestLog.refusedReplyTopic(replyTopic, requestTopic: message.topic, reason: why)
            return
        }
        // A refusal (busy) is answered without parsing.
        let parsed: Result<HistoryQuery, HistoryQuery.Problem> = refusal.map { .failure($0) }
            ?? HistoryQuery.parse(kind: kind, payload: message.payload, now: now)
        var w = JSONWriter(capacity: 4096)
        switch parsed {
        case .failure(let problem):
            writeError(&w, kind: kind, id: envelope.id, field: problem.field, message: problem.message)
            requestLog.refused("refused history query", topic: message.topic, field: problem.field, error: problem.message)
        case .success(let q):
            do {
                try writeAnswer(&w, q)
            } catch let problem as HistoryQuery.Problem {
                w.reset()
                writeError(&w, kind: kind, id: q.id, field: problem.field, message: problem.message)
                requestLog.refused("refused history query", topic: message.topic, field: problem.field, error: problem.message)
            } catch {
                w.reset()
                writeError(&w, kind: kind, id: q.id, field: "history", message: "\(error)")
                log.warning("history query failed", ["topic": message.topic, "error": "\(error)"])
            }
        }
        do {
            _ = try client.publish(topic: replyTopic, payload: w.buffer, qos: 1, correlationData: message.correlationData)
        } catch {
            log.warning("cannot send the history answer", ["topic": replyTopic, "error": "\(error)"])
        }
    }

    private func writeAnswer(_ w: inout JSONWriter, _ q: HistoryQuery) throws {
        w.beginObject()
        if let id = q.id { w.field("id", id) }
        w.field("query", q.kind.rawValue)
        w.field("from", q.from, fractionDigits: 3)
        w.field("to", q.to, fractionDigits: 3)
        w.field("page", q.page)
        switch q.kind {
        case .activity:
            let (items, next) = try source.activities(q.from, q.to, q.page, q.pageSize)
            writeNext(&w, next)
            w.key("items")
            w.beginArray()
            for a in items { ActivityPayload.write(a, startUTC: a.startDate, into: &w) }
            w.endArray()
        case .pedometer:
            let (items, next, totals) = try source.pedometer(q.from, q.to, q.page, q.pageSize)
            writeNext(&w, next)
            w.key("totals")
            ActivityPayload.write(totals, into: &w)
            w.key("items")
            w.beginArray()
            for p in items { ActivityPayload.write(p, into: &w) }
            w.endArray()
        case .recordings:
            w.field("mode", q.mode.rawValue)
            switch q.mode {
            case .files:
                let (files, next) = try source.recordingFiles(q.from, q.to, q.page, q.pageSize)
                writeNext(&w, next)
                w.key("items")
                w.beginArray()
                for f in files { RecordingPayload.write(f, into: &w) }
                w.endArray()
            case .samples:
                let (samples, next) = try source.recordingSamples(q.from, q.to, q.page, q.pageSize)
                writeNext(&w, next)
                RecordingPayload.writeUnits(into: &w)
                w.key("items")
                w.beginArray()
                for s in samples { RecordingPayload.write(s, into: &w) }
                w.endArray()
            }
        }
        w.endObject()
    }

    private func writeNext(_ w: inout JSONWriter, _ next: Int?) {
        w.key("next_page")
        if let next { w.value(next) } else { w.null() }
    }

    private func writeError(_ w: inout JSONWriter, kind: HistoryQuery.Kind, id: String?, field: String, message: String) {
        w.beginObject()
        if let id { w.field("id", id) }
        w.field("query", kind.rawValue)
        w.key("error")
        w.beginObject()
        w.field("field", field)
        w.field("message", message)
        w.endObject()
        w.endObject()
    }
}
