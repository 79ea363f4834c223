/// The `id`, `ok` and `error` of a `<prefix>/cmd/<name>/result` payload, as the agent answers a
/// command (`AgentCommandRequest` waits for the one with its id). Anything else in it is ignored;
/// a payload that is not a JSON object is `nil`. Fuzzed by `scripts/fuzz command`.
struct AgentCommandReply {
    var id: String?
    var ok: Bool
    var error: String?

    init?(_ payload: [UInt8]) {
        guard case .object(let members)? = try? JSONValue.parse(payload) else { return nil }
        ok = false
        for (key, value) in members {
            switch (key, value) {
            case ("id", .string(let s)): id = s
            case ("ok", .bool(let b)): ok = b
            case ("error", .string(let s)): error = s
            default: break
            }
        }
    }
}
