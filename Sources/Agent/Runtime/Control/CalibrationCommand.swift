/// A run-time command on `<topic_prefix>/cmd/calibrate`: learn the gyroscope bias while the
/// device lies still (what `edgemotion calibrate gyro` does with a recording, on the live source).
///
/// ```json
/// {"id":"ha","action":"gyro","duration_s":10}
/// ```
/// `action` is required (today only `gyro`); `duration_s` (seconds of samples averaged, 2 … 120,
/// default 10) and `id` (text ≤ 128 bytes, echoed in the reply) are optional. A bare word (`gyro`)
/// works too. Unknown keys, wrong types and out-of-range values are errors.
struct CalibrationCommand: Equatable, Sendable {
    static let actions = ["gyro"]
    static let keys = ["id", "action", "duration_s"]
    static let durationRange = 2.0...120.0
    static let defaultDuration = 10.0
    /// Largest payload parsed (bytes); larger ones are refused without parsing.
    static let maximumPayloadBytes = 4096

    var id: String?
    var action: String
    /// Seconds of samples to average.
    var duration: Double = CalibrationCommand.defaultDuration

    /// Parses a payload. Never traps, whatever the bytes.
    static func parse(_ payload: [UInt8]) -> Result<CalibrationCommand, StreamCommand.Failure> {
        typealias Failure = StreamCommand.Failure
        guard payload.count <= maximumPayloadBytes else {
            return .failure(Failure(message: "payload is \(payload.count) bytes; at most \(maximumPayloadBytes)"))
        }
        let usage = "expected {\"action\":\"gyro\",\"duration_s\":10} or the bare word gyro"
        let root: JSONValue
        do throws(JSONValue.SyntaxError) {
            root = try JSONValue.parse(payload)
        } catch {
            let word = String(decoding: payload, as: UTF8.self).filter { !$0.isWhitespace }
            if actions.contains(word) { return .success(CalibrationCommand(action: word)) }
            return .failure(Failure(message: payload.isEmpty ? "empty payload; \(usage)" : "\(error); \(usage)"))
        }
        guard case .object(let members) = root else {
            return .failure(Failure(message: "expected a JSON object, found \(root.kindName); \(usage)"))
        }
        var dict: [String: JSONValue] = [:]
        for (k, v) in members {
            guard dict[k] == nil else { return .failure(Failure(message: "key '\(k)' appears twice")) }
            dict[k] = v
        }
        var id: String?
        if let raw = dict["id"] {
            guard case .string(let s) = raw, s.utf8.count <= 128 else {
                return .failure(Failure(message: "id must be a text of at most 128 bytes"))
            }
            id = s
        }
        func fail(_ m: String) -> Result<CalibrationCommand, Failure> { .failure(Failure(id: id, message: m)) }
        for key in dict.keys.sorted() where !keys.contains(key) {
            return fail("unknown key '\(key)'; allowed: \(keys.joined(separator: ", "))")
        }
        guard case .string(let action)? = dict["action"], actions.contains(action) else {
            return fail("'action' must be one of \(actions.joined(separator: ", "))")
        }
        var command = CalibrationCommand(id: id, action: action)
        if let raw = dict["duration_s"] {
            guard case .number(let d) = raw, d.isFinite, durationRange.contains(d) else {
                return fail("'duration_s' must be a number of seconds, \(Int(durationRange.lowerBound)) … \(Int(durationRange.upperBound))")
            }
            command.duration = d
        }
        return .success(command)
    }
}
