import EdgeMotion
import Messaging
import MotionCore
import Platform

/// `edgemotion activity`: the stored activity history (`queryActivityStarting(from:to:)`).
struct ActivityCommand: Command {
    let name = "activity"
    let summary = "query the activity history (7 days) in the state directory"
    let usage = """
    usage: edgemotion activity --from T --to T [--format json|table] [--config FILE | --state-dir DIR]
                               [--page N] [--page-size N]

    Lists activity changes that started in [from, to). T is ISO-8601 UTC (2026-11-30T08:00:00Z),
    Unix seconds (1796000000), 'now', or relative to now (-90s, -15m, -2h, -7d).
      --config FILE     read the history in this configuration's state_directory
      --state-dir DIR   the agent's state directory (default \(HistoryQueryOptions.defaultStateDirectory))
      --page N          page to return, from 0 (default 0); --page-size N rows per page (default 500)
    JSON output has next_page (null on the last page).

    example:
      edgemotion activity --from -2h --to now --format table

    exit status: 0 listed (also when empty); 64 usage or a bad query; 74 the history cannot be read.
    """

    func run(arguments: [String]) -> Int32 {
        let options: HistoryQueryOptions
        switch HistoryQueryOptions.parse(arguments, command: name) {
        case .success(let o): options = o
        case .failure(let message):
            printError(message)
            return 64
        }
        do {
            let store = try ActivityHistoryStore(directory: options.stateDirectory)
            let page = try store.activities(from: options.from, to: options.to, page: options.page, pageSize: options.pageSize)
            if options.format == "table" {
                print("start (UTC)                 activity               confidence  previous duration (s)")
                for r in page.items {
                    let a = r.activity
                    print(HistoryQueryOptions.iso(r.start).padded(to: 28)
                          + (a.flagNames.isEmpty ? "-" : a.flagNames).padded(to: 23)
                          + a.confidence.name.padded(to: 12)
                          + FixedPoint.string(a.previousDuration, digits: 1))
                }
                if let next = page.nextPage { print("(more: --page \(next))") }
            } else {
                var w = JSONWriter(capacity: 1024 + 256 * page.items.count)
                w.beginObject()
                w.field("from", HistoryQueryOptions.iso(options.from))
                w.field("to", HistoryQueryOptions.iso(options.to))
                w.field("page", page.page)
                w.key("next_page")
                if let next = page.nextPage { w.value(next) } else { w.null() }
                w.key("activities")
                w.beginArray()
                // Each item is the `activity` topic's payload (same fields as over MQTT).
                for r in page.items { ActivityPayload.write(r.activity, startUTC: r.start, into: &w) }
                w.endArray()
                w.endObject()
                print(String(decoding: w.buffer, as: UTF8.self))
            }
            return 0
        } catch {
            printError("edgemotion activity: \(error)")
            return error.kind == .invalidQuery ? 64 : 74
        }
    }
}

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
        if o.input != nil { return .success(o) }
        guard let fromText, let toText else { return .failure("edgemotion \(command): --from and --to are required") }
        guard let f = time(fromText) else { return .failure("edgemotion \(command): --from '\(fromText)' is not a time (ISO-8601 UTC, Unix seconds, now, -2h, -7d)") }
        guard let t = time(toText) else { return .failure("edgemotion \(command): --to '\(toText)' is not a time (ISO-8601 UTC, Unix seconds, now, -2h, -7d)") }
        guard f <= t else { return .failure("edgemotion \(command): --from \(fromText) is after --to \(toText)") }
        o.from = f
        o.to = t
        return .success(o)
    }

    /// Parses ISO-8601 (RFC 3339), Unix seconds, `now` or `-<n>{s,m,h,d}` into UTC seconds since
    /// the epoch.
    static func time(_ text: String) -> Double? {
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
}
