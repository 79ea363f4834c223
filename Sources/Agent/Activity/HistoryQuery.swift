import Platform
/// A history request received on `<prefix>/query/activity`, `<prefix>/query/pedometer` or
/// `<prefix>/query/recordings`:
///
/// ```json
/// {"from":"2026-11-30T08:00:00Z","to":"2026-11-30T09:00:00Z","page":0,"page_size":100,
///  "id":"dashboard-1","reply_to":"clients/dashboard-1/replies"}
/// ```
/// `from`/`to` are ISO 8601 UTC strings or Unix seconds; `to` defaults to now, `from` is
/// required. `reply_to` is for MQTT 3.1.1 clients (MQTT 5 clients set the response-topic and
/// correlation-data properties instead); `id` is echoed back. Recording queries also take
/// `"mode":"files"` (default: a summary of each file) or `"samples"` (the raw samples).
struct HistoryQuery: Equatable {
    enum Kind: String { case activity, pedometer, recordings }

    /// What a recordings query answers.
    enum Mode: String { case files, samples }

    var kind: Kind
    /// `mode` of a recordings query (`files` for the other kinds).
    var mode: Mode = .files
    var from: Double
    var to: Double
    var page: Int
    var pageSize: Int
    var id: String?
    var replyTo: String?

    /// Largest request parsed, bytes (like commands'); larger ones are refused without parsing.
    static let maximumPayloadBytes = 4096
    /// Longest `id` echoed, bytes.
    static let maximumIDBytes = 128

    static let maximumPageSize = 1000
    /// The largest page number (keeps `page × page_size` far from overflowing).
    static let maximumPage = 1_000_000_000
    /// The largest range answered in one query (the history keeps 7 days by default).
    static let maximumRange: Double = 31 * 86_400

    /// Why a request was refused: the field and what is wrong, for the error reply.
    struct Problem: Error, Equatable {
        var field: String
        var message: String
    }

    static func parse(kind: Kind, payload: [UInt8], now: Double) -> Result<HistoryQuery, Problem> {
        guard payload.count <= maximumPayloadBytes else {
            return .failure(Problem(field: "payload", message: "request is \(payload.count) bytes; at most \(maximumPayloadBytes)"))
        }
        guard !payload.isEmpty else {
            return .failure(Problem(field: "payload", message: "empty request; send a JSON object such as {\"from\":\"2026-11-30T08:00:00Z\"}"))
        }
        guard let object = (try? JSONValue.parse(payload))?.members else {
            return .failure(Problem(field: "payload", message: "not a JSON object; send e.g. {\"from\":\"2026-11-30T08:00:00Z\",\"to\":\"2026-11-30T09:00:00Z\"}"))
        }
        var known: Set<String> = ["from", "to", "page", "page_size", "id", "reply_to"]
        if kind == .recordings { known.insert("mode") }
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            return .failure(Problem(field: unknown, message: "unknown field; allowed: \(known.sorted().joined(separator: ", "))"))
        }
        var q = HistoryQuery(kind: kind, from: 0, to: now, page: 0, pageSize: 100, id: nil, replyTo: nil)
        if let m = object["mode"] {
            guard let s = m.string, let mode = Mode(rawValue: s) else {
                return .failure(Problem(field: "mode", message: "'\(m.shortText)' is not a mode; use \"files\" (a summary of each recording file) or \"samples\" (the recorded samples, paged)"))
            }
            q.mode = mode
        }
        if let id = object["id"] {
            guard let s = id.string, s.utf8.count <= maximumIDBytes else {
                return .failure(Problem(field: "id", message: "expected a string of at most \(maximumIDBytes) bytes"))
            }
            q.id = s
        }
        if let r = object["reply_to"] {
            guard let s = r.string, !s.isEmpty, !s.contains("+"), !s.contains("#"), !s.utf8.contains(0) else {
                return .failure(Problem(field: "reply_to", message: "expected a topic name without wildcards or NUL"))
            }
            q.replyTo = s
        }
        guard let fromValue = object["from"] else {
            return .failure(Problem(field: "from", message: "required: an ISO 8601 UTC time or Unix seconds"))
        }
        guard let from = time(fromValue) else {
            return .failure(Problem(field: "from", message: "'\(fromValue.shortText)' is not an ISO 8601 UTC time (2026-11-30T08:00:00Z) or Unix seconds"))
        }
        q.from = from
        if let toValue = object["to"] {
            guard let to = time(toValue) else {
                return .failure(Problem(field: "to", message: "'\(toValue.shortText)' is not an ISO 8601 UTC time or Unix seconds"))
            }
            q.to = to
        }
        guard q.from < q.to else {
            return .failure(Problem(field: "to", message: "must be after 'from'"))
        }
        guard q.to - q.from <= maximumRange else {
            return .failure(Problem(field: "to", message: "range longer than 31 days; ask in several queries"))
        }
        if let p = object["page"] {
            guard let n = integer(p), (0...maximumPage).contains(n) else {
                return .failure(Problem(field: "page", message: "expected an integer from 0 to \(maximumPage)"))
            }
            q.page = n
        }
        if let s = object["page_size"] {
            guard let n = integer(s), (1...maximumPageSize).contains(n) else {
                return .failure(Problem(field: "page_size", message: "'\(s.shortText)' is not allowed: expected an integer from 1 to \(maximumPageSize) (at most \(maximumPageSize) items per page; ask for the following ones with \"page\")"))
            }
            q.pageSize = n
        }
        return .success(q)
    }

    /// A JSON integer (not a Boolean, not a fraction).
    private static func integer(_ value: JSONValue) -> Int? {
        guard let d = value.number, d.isFinite, d == d.rounded(), abs(d) < 9e15 else { return nil }
        return Int(d)
    }

    /// Unix seconds (a non-negative number) or an RFC 3339 date-time text.
    private static func time(_ value: JSONValue) -> Double? {
        if let d = value.number { return d.isFinite && d >= 0 ? d : nil }
        return value.string.flatMap(RFC3339.parse)
    }

    /// The `id` and `reply_to` of a request, read even when the request is refused (so the error
    /// can be answered): nil for a payload over `maximumPayloadBytes`, an `id` over
    /// `maximumIDBytes` or a value that is not a string.
    static func envelope(_ payload: [UInt8]) -> (id: String?, replyTo: String?) {
        guard payload.count <= maximumPayloadBytes, let members = (try? JSONValue.parse(payload))?.members else { return (nil, nil) }
        let id = members["id"]?.string.flatMap { $0.utf8.count <= maximumIDBytes ? $0 : nil }
        return (id, members["reply_to"]?.string)
    }
}
