/// A command on `<topic_prefix>/cmd/mount` (`control.enabled`): learn the board's mount from a
/// resting reading, or forget the learned one.
///
/// ```json
/// {"id": "m1", "action": "learn", "samples": 200}
/// {"action": "clear"}
/// ```
/// `action` is required (a bare word `learn` or `clear` works too); `samples` (learn only,
/// 10…10000, default 200) is how many resting samples are averaged; `id` is echoed in the reply
/// on `cmd/mount/result`. Unknown keys, wrong types and out-of-range values are refused.
struct MountCommand: Equatable, Sendable {
    enum Action: String, Sendable, CaseIterable { case learn, clear }
    static let keys = ["id", "action", "samples"]
    static let samplesRange = 10...10_000
    static let defaultSamples = 200
    static let maximumPayloadBytes = 4096

    var id: String?
    var action: Action
    var samples: Int = defaultSamples

    struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        var id: String?
        var message: String
        var description: String { message }
    }

    /// Parses a payload. Never traps, whatever the bytes.
    static func parse(_ payload: [UInt8]) -> Result<MountCommand, Failure> {
        let actions = Action.allCases.map(\.rawValue).joined(separator: ", ")
        guard payload.count <= maximumPayloadBytes else {
            return .failure(Failure(message: "payload is \(payload.count) bytes; at most \(maximumPayloadBytes)"))
        }
        guard !payload.isEmpty else {
            return .failure(Failure(message: "empty payload; expected {\"action\":\"learn\"} or {\"action\":\"clear\"}"))
        }
        let word = String(decoding: payload, as: UTF8.self).filter { !$0.isWhitespace }
        if let a = Action(rawValue: word) { return .success(MountCommand(action: a)) }
        let root: JSONValue
        do throws(JSONValue.SyntaxError) { root = try JSONValue.parse(payload) } catch {
            return .failure(Failure(message: "\(error); expected an object like {\"action\":\"learn\",\"samples\":200}"))
        }
        guard case .object(let members) = root else {
            return .failure(Failure(message: "expected a JSON object, found \(root.kindName)"))
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
        func fail(_ m: String) -> Result<MountCommand, Failure> { .failure(Failure(id: id, message: m)) }
        for key in dict.keys.sorted() where !keys.contains(key) {
            return fail("unknown key '\(key)'; allowed: \(keys.joined(separator: ", "))")
        }
        guard case .string(let name)? = dict["action"], let action = Action(rawValue: name) else {
            return fail("'action' is required: one of \(actions)")
        }
        var command = MountCommand(id: id, action: action)
        if let raw = dict["samples"] {
            guard action == .learn else { return fail("'samples' applies to learn only") }
            guard case .number(let n) = raw, n.isFinite, n == n.rounded(),
                  n >= Double(samplesRange.lowerBound), n <= Double(samplesRange.upperBound) else {
                return fail("'samples' must be a whole number, \(samplesRange.lowerBound)…\(samplesRange.upperBound)")
            }
            command.samples = Int(n)
        }
        return .success(command)
    }
}
