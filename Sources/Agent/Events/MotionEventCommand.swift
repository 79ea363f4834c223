/// The payload of `<prefix>/cmd/events`: `{"action": "set_level", "id": "r1"}` (`id` optional,
/// echoed in the reply on `cmd/events/result`). A bare word (`set_level`) is accepted too.
enum MotionEventCommand {
    static func parse(_ payload: [UInt8]) -> (id: String?, action: String?) {
        if let value = try? JSONValue.parse(payload), let members = value.members {
            return (members["id"]?.string, members["action"]?.string)
        }
        let word = String(decoding: payload, as: UTF8.self).filter { !$0.isWhitespace }
        guard !word.isEmpty, word.count <= 64, word.allSatisfy({ $0.isLetter || $0 == "_" }) else { return (nil, nil) }
        return (nil, word)
    }
}
