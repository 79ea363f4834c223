import EdgeMotion
import Messaging
import Platform

/// Options shared by `edgemotion activity` and `edgemotion steps`.
struct HistoryQueryOptions {
    static let defaultStateDirectory = "/var/lib/edgemotion"
    var from = 0.0
    var to = 0.0
    var format = "json"
    var stateDirectory = defaultStateDirectory
    var page = 0
    var pageSize = 500
    var input: String?
    var strideLength: Double?
    var height: Double?
    /// `steps --input` only: reduce the recording to this rate first (`--rate HZ`), averaging
    /// (`--average`) or not.
    var inputRate: Double?
    var averageInput = false

    enum Parsed {
        case success(HistoryQueryOptions)
        case failure(String)
    }

    static func parse(_ arguments: [String], command: String, allowInput: Bool = false) -> Parsed {
        var o = HistoryQueryOptions()
        var fromText: String?, toText: String?
        var configPath: String?, stateDirectoryGiven = false
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            if a == "--average", allowInput {
                o.averageInput = true
                i += 1
                continue
            }
            guard i + 1 < arguments.count else { return .failure("edgemotion \(command): \(a) needs a value") }
            let v = arguments[i + 1]
            switch a {
            case "--from": fromText = v
            case "--to": toText = v
            case "--format":
                guard v == "json" || v == "table" else { return .failure("edgemotion \(command): --format \(v): use json or table") }
                o.format = v
            case "--state-dir": o.stateDirectory = v; stateDirectoryGiven = true
            case "--config": configPath = v
            case "--page":
                guard let n = Int(v), n >= 0 else { return .failure("edgemotion \(command): --page \(v): use a whole number ≥ 0") }
                o.page = n
            case "--page-size":
                guard let n = Int(v), n >= 1, n <= ActivityHistoryStore.maximumPageSize else {
                    return .failure("edgemotion \(command): --page-size \(v): use 1–\(ActivityHistoryStore.maximumPageSize)")
                }
                o.pageSize = n
            case "--input" where allowInput: o.input = v
            case "--stride" where allowInput:
                guard let d = Double(v), d > 0 else { return .failure("edgemotion \(command): --stride \(v): use metres > 0") }
                o.strideLength = d
            case "--rate" where allowInput:
                guard let hz = OutputRateReducer.rate(v) else { return .failure(OutputRateReducer.rateProblem(command: command, text: v)) }
                o.inputRate = hz
            case "--height" where allowInput:
                guard let d = Double(v), d > 0 else { return .failure("edgemotion \(command): --height \(v): use metres > 0") }
                o.height = d
            default:
                return .failure("edgemotion \(command): unknown option '\(a)'. Run 'edgemotion \(command) --help'.")
            }
            i += 2
        }
        if let configPath {
            guard !stateDirectoryGiven else {
                return .failure("edgemotion \(command): give --config or --state-dir, not both")
            }
            do { o.stateDirectory = try ConfigurationLoader.load(path: configPath).stateDirectory } catch {
                return .failure("\(error)")
            }
        }
        if o.averageInput && o.inputRate == nil { return .failure("edgemotion \(command): --average needs --rate HZ (the rate to average down to)") }
        if o.input != nil { return .success(o) }
        guard let fromText, let toText else { return .failure("edgemotion \(command): --from and --to are required") }
        guard let f = time(fromText) else { return .failure("edgemotion \(command): --from '\(fromText)' is not a time (ISO-8601 UTC, Unix seconds, now, -2h, -7d; years 0001–9999)") }
        guard let t = time(toText) else { return .failure("edgemotion \(command): --to '\(toText)' is not a time (ISO-8601 UTC, Unix seconds, now, -2h, -7d; years 0001–9999)") }
        guard f <= t else { return .failure("edgemotion \(command): --from \(fromText) is after --to \(toText)") }
        o.from = f
        o.to = t
        return .success(o)
    }

    /// Parses ISO-8601 (RFC 3339), Unix seconds, `now` or `-<n>{s,m,h,d}` into UTC seconds since
    /// the epoch; `nil` also for a time outside years 0001–9999 (or not a number: nan, 1e308 s, -1e300d).
    static func time(_ text: String) -> Double? {
        guard let t = parsedTime(text), t >= RFC3339.earliest, t <= RFC3339.latest else { return nil }
        return t
    }

    private static func parsedTime(_ text: String) -> Double? {
        let now = Double(MonotonicClock.realtimeNanos()) * 1e-9
        if text == "now" { return now }
        if text.hasPrefix("-"), let unit = text.last, let n = Double(text.dropFirst().dropLast()) {
            let scale: Double? = switch unit {
            case "s": 1
            case "m": 60
            case "h": 3600
            case "d": 86_400
            default: nil
            }
            if let scale { return now - n * scale }
        }
        if let v = Double(text) { return v }
        return RFC3339.parse(text)
    }

    /// `2026-11-30T08:00:00.000Z`.
    static func iso(_ t: Double) -> String { RFC3339.format(t) }

    /// One page of a history query as the commands print it:
    /// `{"from", "to", <afterRange>, "page", "next_page" (null on the last page), itemsKey: [...]}`.
    func json<Item>(_ page: HistoryPage<Item>, itemsKey: StaticString, afterRange: (inout JSONWriter) -> Void = { _ in },
                    item: (Item, inout JSONWriter) -> Void) -> String {
        var w = JSONWriter(capacity: 1024 + 256 * page.items.count)
        w.beginObject()
        w.field("from", Self.iso(from))
        w.field("to", Self.iso(to))
        afterRange(&w)
        w.field("page", page.page)
        w.key("next_page")
        if let next = page.nextPage { w.value(next) } else { w.null() }
        w.key(itemsKey)
        w.beginArray()
        for r in page.items { item(r, &w) }
        w.endArray()
        w.endObject()
        return String(decoding: w.buffer, as: UTF8.self)
    }
}
