/// The JSON object every `cmd/<name>` payload is: at most `maximumPayloadBytes`, no key twice,
/// keys only from the command's list, and an optional `id` (text ≤ 128 bytes) echoed in the reply.
struct CommandObject {
    static let maximumPayloadBytes = 4096

    var members: [String: JSONValue]
    var id: String?

    /// Parses `payload` as a command object allowing `keys` (besides `id`); `example` completes
    /// the error messages (`expected an object like …`). Never traps, whatever the bytes.
    static func parse(_ payload: [UInt8], keys: [String], example: String) -> Result<CommandObject, StreamCommand.Failure> {
        typealias Failure = StreamCommand.Failure
        guard payload.count <= maximumPayloadBytes else {
            return .failure(Failure(message: "payload is \(payload.count) bytes; at most \(maximumPayloadBytes)"))
        }
        guard !payload.isEmpty else { return .failure(Failure(message: "empty payload; expected a JSON object like \(example)")) }
        let root: JSONValue
        do throws(JSONValue.SyntaxError) {
            root = try JSONValue.parse(payload)
        } catch {
            return .failure(Failure(message: "\(error); expected an object like \(example)"))
        }
        guard case .object(let pairs) = root else {
            return .failure(Failure(message: "expected a JSON object, found \(root.kindName)"))
        }
        var members: [String: JSONValue] = [:]
        for (k, v) in pairs {
            guard members[k] == nil else { return .failure(Failure(message: "key '\(k)' appears twice")) }
            members[k] = v
        }
        var id: String?
        if let raw = members["id"] {
            guard case .string(let s) = raw, s.utf8.count <= 128 else {
                return .failure(Failure(message: "id must be a text of at most 128 bytes"))
            }
            id = s
        }
        for key in members.keys.sorted() where key != "id" && !keys.contains(key) {
            return .failure(Failure(id: id, message: "unknown key '\(key)'; allowed: \((["id"] + keys).joined(separator: ", "))"))
        }
        return .success(CommandObject(members: members, id: id))
    }
}
