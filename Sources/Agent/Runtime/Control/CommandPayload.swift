/// The JSON envelope every `cmd/<name>` payload shares: at most `maximumBytes`, one object, no
/// key twice, only `keys`, and an optional `id` (text ≤ 128 bytes, echoed in the reply). Never
/// traps, whatever the bytes; each refusal says what was expected.
struct CommandPayload {
    /// The object's members, by key.
    var members: [String: JSONValue]
    var id: String?

    /// Why the envelope was refused (`id` when it could be read).
    struct Problem: Error, Equatable, Sendable {
        var id: String?
        var message: String
    }

    /// `emptyHint` follows "empty payload; " and `syntaxHint` a JSON syntax error.
    static func parse(_ payload: [UInt8], maximumBytes: Int, keys: [String], emptyHint: String,
                      syntaxHint: String) -> Result<CommandPayload, Problem> {
        guard payload.count <= maximumBytes else {
            return .failure(Problem(message: "payload is \(payload.count) bytes; at most \(maximumBytes)"))
        }
        guard !payload.isEmpty else { return .failure(Problem(message: "empty payload; " + emptyHint)) }
        let root: JSONValue
        do throws(JSONValue.SyntaxError) { root = try JSONValue.parse(payload) } catch {
            return .failure(Problem(message: "\(error); " + syntaxHint))
        }
        guard case .object(let pairs) = root else {
            return .failure(Problem(message: "expected a JSON object, found \(root.kindName)"))
        }
        var members: [String: JSONValue] = [:]
        for (k, v) in pairs {
            guard members[k] == nil else { return .failure(Problem(message: "key '\(k)' appears twice")) }
            members[k] = v
        }
        var id: String?
        if let raw = members["id"] {
            guard case .string(let s) = raw, s.utf8.count <= 128 else {
                return .failure(Problem(message: "id must be a text of at most 128 bytes"))
            }
            id = s
        }
        for key in members.keys.sorted() where !keys.contains(key) {
            return .failure(Problem(id: id, message: "unknown key '\(key)'; allowed: \(keys.joined(separator: ", "))"))
        }
        return .success(CommandPayload(members: members, id: id))
    }
}
