import EdgeMotion
import Foundation
import MotionCore
import Sensors

/// `edgemotion steps`: stored pedometer totals (`queryPedometerData(from:to:)`), or a step count
/// over a recording file.
struct StepsCommand: Command {
    let name = "steps"
    let summary = "query stored step counts, or count the steps in a recording"
    let usage = """
    usage: edgemotion steps --from T --to T [--format json|table] [--state-dir DIR] [--page N] [--page-size N]
           edgemotion steps --input FILE.csv [--stride M | --height M] [--format json|table]

    First form: pedometer totals and intervals that started in [from, to) from the history in the
    state directory (default \(HistoryQueryOptions.defaultStateDirectory)). T as for 'edgemotion activity'.
    Second form: runs the pedometer over a recording in the shared schema and prints steps, cadence
    (steps/s), distance (m), and pause/resume events; as in the agent, steps count only while the
    activity detector reports walking or running (steps of a walk's first seconds are held until then).
    """

    func run(arguments: [String]) -> Int32 {
        let options: HistoryQueryOptions
        switch HistoryQueryOptions.parse(arguments, command: name, allowInput: true) {
        case .success(let o): options = o
        case .failure(let message):
            printError(message)
            return 64
        }
        if let input = options.input { return count(input, options) }
        do {
            let store = try ActivityHistoryStore(directory: options.stateDirectory)
            let total = try store.pedometerTotals(from: options.from, to: options.to)
            let page = try store.pedometer(from: options.from, to: options.to, page: options.page, pageSize: options.pageSize)
            if options.format == "table" {
                print("total: \(total.steps) steps, \(String(format: "%.1f", total.distance)) m"
                      + (total.floorsAscended.map { ", floors up \($0)" } ?? "") + (total.floorsDescended.map { ", down \($0)" } ?? ""))
                print("start (UTC)                 end (UTC)                   steps   distance (m)")
                for r in page.items {
                    print(HistoryQueryOptions.iso(r.start).padding(toLength: 28, withPad: " ", startingAt: 0)
                          + HistoryQueryOptions.iso(r.end).padding(toLength: 28, withPad: " ", startingAt: 0)
                          + String(r.steps).padding(toLength: 8, withPad: " ", startingAt: 0) + String(format: "%.1f", r.distance))
                }
                if let next = page.nextPage { print("(more: --page \(next))") }
            } else {
                let items: [[String: Any]] = page.items.map { r in
                    var d: [String: Any] = ["start": HistoryQueryOptions.iso(r.start), "end": HistoryQueryOptions.iso(r.end),
                                            "steps": r.steps, "distance_m": r.distance]
                    if let f = r.floorsAscended { d["floors_ascended"] = f }
                    if let f = r.floorsDescended { d["floors_descended"] = f }
                    return d
                }
                var totals: [String: Any] = ["steps": total.steps, "distance_m": total.distance]
                if let f = total.floorsAscended { totals["floors_ascended"] = f }
                if let f = total.floorsDescended { totals["floors_descended"] = f }
                print(HistoryQueryOptions.json([
                    "from": HistoryQueryOptions.iso(options.from), "to": HistoryQueryOptions.iso(options.to), "total": totals,
                    "page": page.page, "next_page": page.nextPage.map { $0 as Any } ?? NSNull(), "intervals": items,
                ] as [String: Any]))
            }
            return 0
        } catch {
            printError("edgemotion steps: \(error)")
            return error.kind == .invalidQuery ? 64 : 74
        }
    }

    private func count(_ input: String, _ options: HistoryQueryOptions) -> Int32 {
        var pedometer = Pedometer(configuration: PedometerConfiguration(strideLength: options.strideLength, height: options.height))
        var events: [String] = []
        // As in the agent: steps count only while the activity detector sees walking or running.
        let detector = ActivityDetector()
        _ = pedometer.setGait(false)
        do {
            let reader = try RecordingReader(path: input)
            while let row = try reader.next() {
                if let a = detector.update(time: row.time, specificForce: row.specificForce, rotationRate: row.rotationRate),
                   let e = pedometer.setGait(a.walking || a.running) {
                    events.append("\(e.kind.name)@\(String(format: "%.2f", e.date))")
                }
                if let e = pedometer.update(time: row.time, specificForce: row.specificForce) {
                    events.append("\(e.kind.name)@\(String(format: "%.2f", e.date))")
                }
            }
        } catch {
            printError("edgemotion steps: \(error)")
            return 66
        }
        let d = pedometer.data
        if options.format == "table" {
            print("\(input): \(d.numberOfSteps) steps, \(String(format: "%.1f", d.distance)) m, cadence \(String(format: "%.2f", d.currentCadence)) steps/s, events \(events.joined(separator: " "))")
        } else {
            print(HistoryQueryOptions.json([
                "input": input, "steps": d.numberOfSteps, "distance_m": d.distance, "cadence_steps_per_s": d.currentCadence,
                "average_active_pace_s_per_m": d.averageActivePace, "duration_s": d.endDate - d.startDate, "events": events,
            ] as [String: Any]))
        }
        return 0
    }
}
