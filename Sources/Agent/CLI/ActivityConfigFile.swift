import MotionCore

/// The JSON file `classify --config` reads: optional model parameters and detector settings.
///
/// ```json
/// {"model": {"classes": [...], "mean": [...], "scale": [...], "weights": [[...]]},
///  "lowRateModel": {...the same fields...},
///  "detector": {"enterDecisions": 3, "vehicleStopTimeout": 180}}
/// ```
/// Strict: an unknown key or a value of the wrong kind is an error naming it.
enum ActivityConfigFile {
    struct LoadError: Error, CustomStringConvertible {
        var description: String
    }

    /// The detector settings the file may set, by JSON name.
    nonisolated(unsafe) static let detectorFields: [(String, WritableKeyPath<ActivityConfiguration, Double>)] = [
        ("internalRate", \.internalRate), ("maximumGap", \.maximumGap), ("minimumDwell", \.minimumDwell),
        ("vehicleEnterProbability", \.vehicleEnterProbability), ("vehicleStopTimeout", \.vehicleStopTimeout),
        ("mediumConfidenceMargin", \.mediumConfidenceMargin), ("highConfidenceMargin", \.highConfidenceMargin),
        ("switchProbability", \.switchProbability), ("transitionLogRatio", \.transitionLogRatio),
        ("minimumGaitStd", \.minimumGaitStd), ("gaitEndMaximumStd", \.gaitEndMaximumStd),
        ("cyclingMaximumKurtosis", \.cyclingMaximumKurtosis), ("cyclingImpactMinimumStd", \.cyclingImpactMinimumStd),
        ("unknownBelowProbability", \.unknownBelowProbability),
        ("cyclingSeatedGyroPeriodicity", \.cyclingSeatedGyroPeriodicity),
        ("cyclingSeatedMinimumGyroRMS", \.cyclingSeatedMinimumGyroRMS), ("cyclingSeatedMaximumStd", \.cyclingSeatedMaximumStd),
        ("vehicleMaximumGyroRMS", \.vehicleMaximumGyroRMS),
        ("vehicleMinimumHorizontalRatio", \.vehicleMinimumHorizontalRatio),
        ("vehicleMinimumYawShare", \.vehicleMinimumYawShare), ("vehicleYawShareMinimumRotation", \.vehicleYawShareMinimumRotation),
        ("lowRateModelBelow", \.lowRateModelBelow), ("runningMinimumStrideRate", \.runningMinimumStrideRate),
    ]
    nonisolated(unsafe) static let detectorIntegerFields: [(String, WritableKeyPath<ActivityConfiguration, Int>)] = [
        ("windowLength", \.windowLength), ("hop", \.hop), ("voteDecisions", \.voteDecisions),
        ("enterDecisions", \.enterDecisions), ("vehicleVoteDecisions", \.vehicleVoteDecisions),
        ("vehicleExitDecisions", \.vehicleExitDecisions), ("unknownAfterGaitDecisions", \.unknownAfterGaitDecisions),
    ]

    /// Reads `path` (at most 16 MiB) and applies it: see `parse(_:path:into:model:)`.
    static func load(path: String, into c: inout ActivityConfiguration, model: inout ActivityModel,
                     lowRateModel: inout ActivityModel) throws(LoadError) {
        let bytes: [UInt8]
        do throws(FileError) { bytes = try WholeFile.bytes(atPath: path, limit: 16 << 20) } catch {
            throw LoadError(description: "cannot read config \(path): \(error); check the path")
        }
        try parse(bytes, path: path, into: &c, model: &model, lowRateModel: &lowRateModel)
    }

    /// Applies the file's contents to `c`, `model` and `lowRateModel`; `path` only names the file in
    /// errors. A file with a `model` but no `lowRateModel` sets both to its model (one model at every
    /// rate: a fold's model is never mixed with the shipped one). On an error none is usable (the
    /// caller stops); on success all passed their `validationError()` checks.
    static func parse(_ bytes: [UInt8], path: String, into c: inout ActivityConfiguration, model: inout ActivityModel,
                      lowRateModel: inout ActivityModel) throws(LoadError) {
        let top: [String: JSONValue]
        do throws(JSONValue.SyntaxError) {
            guard let members = try JSONValue.parse(bytes).members else {
                throw JSONValue.SyntaxError(offset: 0, message: "the top level is not an object")
            }
            top = members
        } catch {
            throw LoadError(description: "\(path): not a valid activity config (\(error)); expected {\"model\": {...}, \"detector\": {...}}")
        }
        if let unknown = top.keys.sorted().first(where: { $0 != "model" && $0 != "lowRateModel" && $0 != "detector" }) {
            throw LoadError(description: "\(path): unknown key '\(unknown)'; expected model, lowRateModel and/or detector")
        }
        if let m = top["model"] {
            model = try Self.model(m, path: path, key: "model")
            lowRateModel = model
        }
        if let m = top["lowRateModel"] { lowRateModel = try Self.model(m, path: path, key: "lowRateModel") }
        if let d = top["detector"] {
            guard let fields = d.members else { throw LoadError(description: "\(path): detector: expected an object") }
            for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
                if let (_, kp) = detectorFields.first(where: { $0.0 == key }) {
                    guard let v = value.number, v.isFinite else {
                        throw LoadError(description: "\(path): detector.\(key): expected a number, not \(value.shortText)")
                    }
                    c[keyPath: kp] = v
                } else if let (_, kp) = detectorIntegerFields.first(where: { $0.0 == key }) {
                    guard let v = value.number, v == v.rounded(), abs(v) < 1e9 else {
                        throw LoadError(description: "\(path): detector.\(key): expected a whole number, not \(value.shortText)")
                    }
                    c[keyPath: kp] = Int(v)
                } else {
                    let known = (detectorFields.map(\.0) + detectorIntegerFields.map(\.0)).sorted().joined(separator: ", ")
                    throw LoadError(description: "\(path): detector.\(key): unknown setting; known: \(known)")
                }
            }
            if let problem = c.validationError() { throw LoadError(description: "\(path): detector.\(problem)") }
        }
    }

    private static func model(_ value: JSONValue, path: String, key: String) throws(LoadError) -> ActivityModel {
        guard let m = value.members else { throw LoadError(description: "\(path): \(key): expected an object") }
        func numbers(_ v: JSONValue?, _ name: String) throws(LoadError) -> [Double] {
            guard case .array(let items)? = v else { throw LoadError(description: "\(path): \(key).\(name): expected an array of numbers") }
            var out: [Double] = []
            for item in items {
                guard let d = item.number else { throw LoadError(description: "\(path): \(key).\(name): \(item.shortText) is not a number") }
                out.append(d)
            }
            return out
        }
        guard case .array(let names)? = m["classes"] else { throw LoadError(description: "\(path): \(key).classes: expected an array of class names") }
        var classes: [ActivityClass] = []
        for name in names {
            guard let text = name.string, let c = ActivityClass(name: text) else {
                throw LoadError(description: "\(path): \(key).classes: unknown class '\(name.shortText)'")
            }
            classes.append(c)
        }
        guard case .array(let rows)? = m["weights"] else { throw LoadError(description: "\(path): \(key).weights: expected an array of rows") }
        var weights: [[Double]] = []
        for row in rows { weights.append(try numbers(row, "weights")) }
        let candidate = ActivityModel(classes: classes, mean: try numbers(m["mean"], "mean"), scale: try numbers(m["scale"], "scale"), weights: weights)
        if let problem = candidate.validationError() { throw LoadError(description: "\(path): \(key): \(problem)") }
        return candidate
    }
}
