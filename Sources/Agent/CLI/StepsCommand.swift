import EdgeMotion
import Messaging
import MotionCore
import Sensors

/// `edgemotion steps`: stored pedometer totals (`queryPedometerData(from:to:)`), or a step count
/// over a recording file.
struct StepsCommand: Command {
    let name = "steps"
    let summary = "query stored step counts, or count the steps in a recording"
    let usage = """
    usage: edgemotion steps --from T --to T [--format json|table] [--config FILE | --state-dir DIR] [--page N] [--page-size N]
           edgemotion steps --input FILE.csv [--stride M | --height M] [--rate HZ [--average]] [--format json|table]

    First form: pedometer totals and intervals that started in [from, to) from the history in the
    state directory (default \(HistoryQueryOptions.defaultStateDirectory)). T as for 'edgemotion activity'.
    Second form: runs the pedometer over a recording in the shared schema and prints steps, cadence
    (steps/s), distance (m), and pause/resume events; as in the agent, steps count only while the
    activity detector reports walking or running, kept through `unknown` (steps of a walk's first seconds are held until then).
    --rate HZ reduces the recording to HZ first, as a sensor set to that output data rate delivers it
    (every sample ≥ 1/HZ s after the last one kept; with --average the mean of each 1/HZ s instead).

    examples:
      edgemotion steps --from -1d --to now --format table
      edgemotion steps --input walk.csv.gz --stride 0.7
      edgemotion steps --input walk.csv.gz --rate 10 --average

    exit status: 0 printed; 64 usage or a bad query; 66 the recording cannot be read;
    74 the history cannot be read.
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
                print("total: \(total.steps) steps, \(FixedPoint.string(total.distance, digits: 1)) m"
                      + (total.floorsAscended.map { ", floors up \($0)" } ?? "") + (total.floorsDescended.map { ", down \($0)" } ?? ""))
                print("start (UTC)                 end (UTC)                   steps   distance (m)")
                for r in page.items {
                    print(HistoryQueryOptions.iso(r.start).padded(to: 28)
                          + HistoryQueryOptions.iso(r.end).padded(to: 28)
                          + String(r.steps).padded(to: 8) + FixedPoint.string(r.distance, digits: 1))
                }
                if let next = page.nextPage { print("(more: --page \(next))") }
            } else {
                // Each interval is the history reply's pedometer item (same fields as over MQTT).
                print(options.json(page, itemsKey: "intervals", afterRange: { w in
                    w.key("total")
                    ActivityPayload.write(total, into: &w)
                }) { r, w in ActivityPayload.write(r, into: &w) })
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
        pedometer.startGating()
        do {
            let reader = try RecordingReader(path: input)
            func feed(_ row: RecordingRow) {
                if let a = detector.update(time: row.time, specificForce: row.specificForce, rotationRate: row.rotationRate),
                   let e = pedometer.setGait(for: a) {
                    events.append("\(e.kind.name)@\(FixedPoint.string(e.date, digits: 2))")
                }
                if let e = pedometer.update(time: row.time, specificForce: row.specificForce) {
                    events.append("\(e.kind.name)@\(FixedPoint.string(e.date, digits: 2))")
                }
            }
            var reducer = OutputRateReducer(rate: options.inputRate, averaging: options.averageInput)
            while let row = try reader.next() { reducer.add(row, emit: feed) }
            reducer.finish(emit: feed)
        } catch {
            printError("edgemotion steps: \(error)")
            return 66
        }
        let d = pedometer.data
        if options.format == "table" {
            print("\(input): \(d.numberOfSteps) steps, \(FixedPoint.string(d.distance, digits: 1)) m, cadence \(FixedPoint.string(d.currentCadence, digits: 2)) steps/s, events \(events.joined(separator: " "))")
        } else {
            var w = JSONWriter(capacity: 1024 + 32 * events.count)
            w.beginObject()
            w.field("input", input)
            w.field("steps", d.numberOfSteps)
            w.field("distance_m", d.distance, fractionDigits: 3)
            w.field("cadence_steps_per_s", d.currentCadence, fractionDigits: 3)
            w.field("average_active_pace_s_per_m", d.averageActivePace, fractionDigits: 3)
            w.field("duration_s", d.endDate - d.startDate, fractionDigits: 3)
            w.key("events")
            w.beginArray()
            for e in events { w.string(e) }
            w.endArray()
            w.endObject()
            print(String(decoding: w.buffer, as: UTF8.self))
        }
        return 0
    }
}
