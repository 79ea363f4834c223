import Foundation
import MotionCore
import Sensors

/// `edgemotion classify`: runs the activity detector over a recording as fast as possible and
/// writes the scorer's prediction format (`../shared/tools/activity_eval.py`).
struct ClassifyCommand: Command {
    let name = "classify"
    let summary = "run the activity detector over a recording CSV and write predictions"
    let usage = """
    usage: edgemotion classify --input FILE.csv --output PRED.csv [--config FILE.json]
                               [--recording ID] [--features-out FEATURES.csv]

    Reads a recording in the shared schema (t_s,ax,ay,az[,gx,gy,gz][,label]; m/s², rad/s; plain or
    .gz), runs the activity detector and writes one row per decision window once an activity is
    known (one per second by default): t_s,label,confidence,flags[,recording]. Changes happen only at
    decisions, so every change has its row. Rows before the first activity settles are not written.

      --config FILE      JSON with optional "model" (classes, mean, scale, weights — the format
                         scripts/fit-activity-model writes) and "detector" (ActivityConfiguration
                         fields, e.g. {"enterDecisions": 3, "vehicleStopTimeout": 180}).
      --recording ID     add a recording column with ID (needed when scoring several recordings).
      --features-out F   also write every decision's features and the truth label (for fitting).
      --no-gyro          ignore the recording's gyroscope columns.
    """

    func run(arguments: [String]) -> Int32 {
        var input: String?, output: String?, config: String?, recording: String?, featuresOut: String?
        var useGyro = true
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            func value() -> String? {
                i += 1
                return i < arguments.count ? arguments[i] : nil
            }
            switch a {
            case "--input": input = value()
            case "--output": output = value()
            case "--config": config = value()
            case "--recording": recording = value()
            case "--features-out": featuresOut = value()
            case "--no-gyro": useGyro = false
            default:
                printError("edgemotion classify: unknown option '\(a)'. Run 'edgemotion classify --help'.")
                return 64
            }
            i += 1
        }
        guard let input, let output else {
            printError("edgemotion classify: --input and --output are required. Run 'edgemotion classify --help'.")
            return 64
        }
        var configuration = ActivityConfiguration()
        var model = ActivityModel.fitted
        if let config {
            do {
                try ActivityConfigFile.load(path: config, into: &configuration, model: &model)
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
        let detector = ActivityDetector(configuration: configuration, model: model)
        var pred = "t_s,label,confidence,flags" + (recording != nil ? ",recording" : "") + "\n"
        var feats = featuresOut == nil ? "" : "t_s," + ActivityFeatures.names.joined(separator: ",")
            + ",gyro_rms,gyro_periodicity,gyro_cadence_hz,label" + (recording != nil ? ",recording" : "") + "\n"
        let recordingSuffix = recording.map { "," + $0 } ?? ""
        var decisions = 0
        do {
            while let row = try reader.next() {
                _ = detector.update(time: row.time, specificForce: row.specificForce,
                                    rotationRate: useGyro ? row.rotationRate : nil)
                guard detector.decisionCount != decisions else { continue }
                decisions = detector.decisionCount
                let d = detector.lastDecision
                if featuresOut != nil {
                    feats += "\(d.time)"
                    for k in 0..<ActivityFeatures.modelFeatureCount { feats += ",\(d.features[k])" }
                    feats += ",\(d.features.gyroRMS),\(d.features.gyroPeriodicity),\(d.features.gyroCadence)"
                    feats += "," + (row.label ?? "") + recordingSuffix + "\n"
                }
                if let a = detector.currentActivity {
                    pred += "\(Self.format(d.time)),\(a.primary.name),\(a.confidence.name),\(a.flagNames.replacingOccurrences(of: ",", with: "+"))\(recordingSuffix)\n"
                }
            }
        } catch {
            printError("edgemotion classify: \(error)")
            return 65
        }
        do {
            try pred.write(toFile: output, atomically: true, encoding: .utf8)
            if let featuresOut { try feats.write(toFile: featuresOut, atomically: true, encoding: .utf8) }
        } catch {
            printError("edgemotion classify: cannot write \(output): \(error.localizedDescription); check the directory exists and is writable")
            return 73
        }
        return 0
    }

    static func format(_ t: Double) -> String {
        String(format: "%.3f", t)
    }
}

/// The JSON file `classify --config` reads: optional model parameters and detector settings.
enum ActivityConfigFile {
    struct ModelJSON: Decodable {
        var classes: [String]
        var mean: [Double]
        var scale: [Double]
        var weights: [[Double]]
    }

    struct DetectorJSON: Decodable {
        var internalRate: Double?
        var windowLength: Int?
        var hop: Int?
        var maximumGap: Double?
        var voteDecisions: Int?
        var enterDecisions: Int?
        var minimumDwell: Double?
        var vehicleVoteDecisions: Int?
        var vehicleEnterProbability: Double?
        var vehicleStopTimeout: Double?
        var mediumConfidenceMargin: Double?
        var highConfidenceMargin: Double?
        var switchProbability: Double?
        var transitionLogRatio: Double?
        var minimumGaitStd: Double?
        var vehicleExitDecisions: Int?
    }

    struct FileJSON: Decodable {
        var model: ModelJSON?
        var detector: DetectorJSON?
    }

    struct LoadError: Error, CustomStringConvertible {
        var description: String
    }

    static func load(path: String, into c: inout ActivityConfiguration, model: inout ActivityModel) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LoadError(description: "cannot read config \(path); check the path")
        }
        let file: FileJSON
        do {
            file = try JSONDecoder().decode(FileJSON.self, from: data)
        } catch {
            throw LoadError(description: "\(path): not a valid activity config (\(error)); expected {\"model\": {...}, \"detector\": {...}}")
        }
        if let m = file.model {
            var classes: [ActivityClass] = []
            for name in m.classes {
                guard let c = ActivityClass(name: name) else {
                    throw LoadError(description: "\(path): model.classes: unknown class '\(name)'")
                }
                classes.append(c)
            }
            let candidate = ActivityModel(classes: classes, mean: m.mean, scale: m.scale, weights: m.weights)
            if let problem = candidate.validationError() { throw LoadError(description: "\(path): \(problem)") }
            model = candidate
        }
        if let d = file.detector {
            if let v = d.internalRate { c.internalRate = v }
            if let v = d.windowLength { c.windowLength = v }
            if let v = d.hop { c.hop = v }
            if let v = d.maximumGap { c.maximumGap = v }
            if let v = d.voteDecisions { c.voteDecisions = v }
            if let v = d.enterDecisions { c.enterDecisions = v }
            if let v = d.minimumDwell { c.minimumDwell = v }
            if let v = d.vehicleVoteDecisions { c.vehicleVoteDecisions = v }
            if let v = d.vehicleEnterProbability { c.vehicleEnterProbability = v }
            if let v = d.vehicleStopTimeout { c.vehicleStopTimeout = v }
            if let v = d.mediumConfidenceMargin { c.mediumConfidenceMargin = v }
            if let v = d.highConfidenceMargin { c.highConfidenceMargin = v }
            if let v = d.switchProbability { c.switchProbability = v }
            if let v = d.transitionLogRatio { c.transitionLogRatio = v }
            if let v = d.minimumGaitStd { c.minimumGaitStd = v }
            if let v = d.vehicleExitDecisions { c.vehicleExitDecisions = v }
            if let problem = c.validationError() { throw LoadError(description: "\(path): detector.\(problem)") }
        }
    }
}
