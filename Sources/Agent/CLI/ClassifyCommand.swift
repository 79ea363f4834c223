import MotionCore
import Sensors

/// `edgemotion classify`: runs the activity detector over a recording as fast as possible and
/// writes the scorer's prediction format (`../shared/tools/activity_eval.py`).
struct ClassifyCommand: Command {
    let name = "classify"
    let summary = "run the activity detector over a recording CSV and write predictions"
    let usage = """
    usage: edgemotion classify --input FILE.csv --output PRED.csv [--config FILE.json]
                               [--recording ID] [--features-out FEATURES.csv] [--rate HZ [--average]]

    Reads a recording in the shared schema (t_s,ax,ay,az[,gx,gy,gz][,label]; m/s², rad/s; plain or
    .gz), runs the activity detector and writes one row per decision window once an activity is
    known (one per second by default): t_s,label,confidence,flags[,recording]. Changes happen only at
    decisions, so every change has its row. Rows before the first activity settles are not written.

      --config FILE      JSON with optional "model" (classes, mean, scale, weights — the format
                         scripts/fit-activity-model writes), "lowRateModel" (the same, used for input
                         below detector.lowRateModelBelow, 16 Hz; a file with only "model" uses it at
                         every rate) and "detector" (ActivityConfiguration fields, e.g.
                         {"enterDecisions": 3, "vehicleStopTimeout": 180}).
      --recording ID     add a recording column with ID (needed when scoring several recordings).
      --features-out F   also write every decision's features and the truth label (for fitting).
      --no-gyro          ignore the recording's gyroscope columns.
      --rate HZ          keep only every sample that is ≥ 1/HZ s after the last one kept (plain
                         decimation, no filtering, as a sensor set to a low output data rate delivers).
      --average          with --rate: one sample per 1/HZ s, the mean of the samples in it (a sensor
                         that averages before it reduces its rate).

    When the detector withholds decisions because its input is too slow or has no gravity in it,
    the reason is printed on standard error (once per kind of problem) and those seconds have no rows.

    example:
      edgemotion classify --input walk.csv.gz --output walk-pred.csv

    exit status: 0 written; 64 usage; 65 bad --config or a recording that cannot be classified;
    66 the recording cannot be read; 73 the output cannot be written.
    """

    func run(arguments: [String]) -> Int32 {
        guard let options = OptionScanner(command: name, arguments: arguments,
                                          valued: ["--input", "--output", "--config", "--recording", "--features-out", "--rate"],
                                          flagNames: ["--no-gyro", "--average"], usage: usage) else { return 64 }
        guard options.positional.isEmpty else {
            printError("edgemotion classify: unexpected argument '\(options.positional[0])'. Run 'edgemotion classify --help'.")
            return 64
        }
        let input = options["--input"], output = options["--output"], config = options["--config"]
        let recording = options["--recording"], featuresOut = options["--features-out"]
        let useGyro = !options.flags.contains("--no-gyro")
        var rate: Double?
        if let text = options["--rate"] {
            guard let hz = OutputRateReducer.rate(text) else {
                printError(OutputRateReducer.rateProblem(command: "classify", text: text))
                return 64
            }
            rate = hz
        } else if options.flags.contains("--average") {
            printError("edgemotion classify: --average needs --rate HZ (the rate to average down to)")
            return 64
        }
        guard let input, let output else {
            printError("edgemotion classify: --input and --output are required. Run 'edgemotion classify --help'.")
            return 64
        }
        var configuration = ActivityConfiguration()
        var model = ActivityModel.fitted, lowRateModel = ActivityModel.fittedLowRate
        if let config {
            do {
                try ActivityConfigFile.load(path: config, into: &configuration, model: &model, lowRateModel: &lowRateModel)
            } catch {
                printError("edgemotion classify: \(error)")
                return 65
            }
        }
        let reader: RecordingReader
        do {
            reader = try RecordingReader(path: input)
        } catch {
            printError("edgemotion classify: \(error)")
            return 66
        }
        let detector = ActivityDetector(configuration: configuration, model: model, lowRateModel: lowRateModel)
        var pred = "t_s,label,confidence,flags" + (recording != nil ? ",recording" : "") + "\n"
        var feats = featuresOut == nil ? "" : "t_s," + ActivityFeatures.names.joined(separator: ",")
            + ",gyro_rms,gyro_periodicity,gyro_cadence_hz,kurtosis,label" + (recording != nil ? ",recording" : "") + "\n"
        let recordingSuffix = recording.map { "," + $0 } ?? ""
        var decisions = 0
        var progress = ProgressLine("classify \(input)", unit: "rows")
        var rows = 0
        var lastProblemCode: String?
        var reducer = OutputRateReducer(rate: rate, averaging: options.flags.contains("--average"))
        defer { progress.finish() }
        func classify(_ row: RecordingRow) {
            _ = detector.update(time: row.time, specificForce: row.specificForce,
                                rotationRate: useGyro ? row.rotationRate : nil)
            let problem = detector.inputProblem
            if let problem, problem.code.description != lastProblemCode {
                printError("edgemotion classify: warning: \(input) at t = \(Self.format(row.time)) s: \(problem.message)")
            }
            lastProblemCode = problem.map { $0.code.description }
            guard detector.decisionCount != decisions else { return }
            decisions = detector.decisionCount
            let d = detector.lastDecision
            if featuresOut != nil {
                feats += "\(d.time)"
                for k in 0..<ActivityFeatures.modelFeatureCount { feats += ",\(d.features[k])" }
                feats += ",\(d.features.gyroRMS),\(d.features.gyroPeriodicity),\(d.features.gyroCadence),\(d.features.magnitudeKurtosis)"
                feats += "," + (row.label ?? "") + recordingSuffix + "\n"
            }
            if let a = detector.currentActivity {
                pred += "\(Self.format(d.time)),\(a.primary.name),\(a.confidence.name),\(String(a.flagNames.map { $0 == "," ? "+" : $0 }))\(recordingSuffix)\n"
            }
        }
        do {
            while let row = try reader.next() {
                rows += 1
                if rows & 0xFFF == 0 { progress.update(rows) }
                reducer.add(row, emit: classify)
            }
            reducer.finish(emit: classify)
        } catch {
            printError("edgemotion classify: \(error)")
            return 65
        }
        do throws(FileError) {
            try WholeFile.write(pred, atomicallyTo: output)
            if let featuresOut { try WholeFile.write(feats, atomicallyTo: featuresOut) }
        } catch {
            printError("edgemotion classify: cannot write \(output): \(error); check the directory exists and is writable")
            return 73
        }
        return 0
    }

    static func format(_ t: Double) -> String {
        FixedPoint.string(t, digits: 3)
    }
}
