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
                // Each item is the `activity` topic's payload (same fields as over MQTT).
                print(options.json(page, itemsKey: "activities") { r, w in
                    ActivityPayload.write(r.activity, startUTC: r.start, into: &w)
                })
            }
            return 0
        } catch {
            printError("edgemotion activity: \(error)")
            return error.kind == .invalidQuery ? 64 : 74
        }
    }
}
