import Dispatch
import EdgeMotion
import Foundation
import Logging
import Messaging
import MotionCore

/// Answers activity and pedometer history queries over MQTT (Core Motion's
/// `queryActivityStarting(from:to:)` and `queryPedometerData(from:to:)`, for any subscriber).
///
/// Requests arrive on `<prefix>/query/activity` and `<prefix>/query/pedometer` (see
/// `HistoryQuery` for the JSON). The answer goes to the MQTT 5 response topic with the request's
/// correlation data, else to the request's `reply_to`, else to `<request topic>/response`.
/// Large ranges are answered a page at a time (`page`, `next_page`). Queries run on their own
/// serial queue, never on the MQTT network thread.
final class HistoryQueryResponder: Sendable {
    /// Where the answers come from.
    struct Source: Sendable {
        /// Activity changes that started in `[from, to)` (UTC s): one page, and the next page's number.
        var activities: @Sendable (_ from: Double, _ to: Double, _ page: Int, _ pageSize: Int) throws -> ([MotionActivity], Int?)
        /// Pedometer intervals in `[from, to)`: one page, the next page's number, and the range's totals.
        var pedometer: @Sendable (_ from: Double, _ to: Double, _ page: Int, _ pageSize: Int) throws -> ([PedometerRecord], Int?, PedometerRecord)

        /// Queries the SQLite history store.
        static func store(_ store: ActivityHistoryStore) -> Source {
            Source(
                activities: { from, to, page, size in
                    let p = try store.activities(from: from, to: to, page: page, pageSize: size)
                    return (p.items.map(\.activity), p.nextPage)
                },
                pedometer: { from, to, page, size in
                    let p = try store.pedometer(from: from, to: to, page: page, pageSize: size)
                    return (p.items, p.nextPage, try store.pedometerTotals(from: from, to: to))
                })
        }
    }

    let activityTopic: String
    let pedometerTopic: String
    private let client: MQTTClient
    private let source: Source
    private let queue = DispatchQueue(label: "edgemotion.history-queries")
    private let log = Logger(label: "query")

    init(client: MQTTClient, prefix: String, source: Source) {
        self.client = client
        self.source = source
        activityTopic = prefix + "/query/activity"
        pedometerTopic = prefix + "/query/pedometer"
    }

    /// Subscribes to both request topics (renewed on every reconnection by the client).
    func subscribe() throws(MQTTError) {
        try client.subscribe(activityTopic, qos: 1)
        try client.subscribe(pedometerTopic, qos: 1)
    }

    /// Takes the message if it is a history request; returns whether it was one. Call from
    /// `MQTTClient.onMessage`; the work happens on the responder's queue.
    @discardableResult
    func handle(_ message: MQTTMessage) -> Bool {
        let kind: HistoryQuery.Kind
        switch message.topic {
        case activityTopic: kind = .activity
        case pedometerTopic: kind = .pedometer
        default: return false
        }
        queue.async { [self] in answer(message, kind: kind) }
        return true
    }

    private func answer(_ message: MQTTMessage, kind: HistoryQuery.Kind) {
        let now = Double(MonotonicClock.realtimeNanos()) * 1e-9
        let parsed = HistoryQuery.parse(kind: kind, payload: message.payload, now: now)
        let replyTopic = message.responseTopic ?? (try? parsed.get())?.replyTo ?? replyToField(message.payload) ?? message.topic + "/response"
        var w = JSONWriter(capacity: 4096)
        switch parsed {
        case .failure(let problem):
            writeError(&w, kind: kind, id: idField(message.payload), field: problem.field, message: problem.message)
            log.info("refused history query", ["topic": message.topic, "field": problem.field, "error": problem.message])
        case .success(let q):
            do {
                try writeAnswer(&w, q)
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

    // A malformed request may still carry a usable reply_to / id.
    private func replyToField(_ payload: [UInt8]) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])?["reply_to"] as? String
    }

    private func idField(_ payload: [UInt8]) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])?["id"] as? String
    }
}
