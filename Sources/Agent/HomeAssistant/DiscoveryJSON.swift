/// A small JSON value with ordered object keys, for the few discovery documents the agent
/// announces (not for the per-sample path: that uses `JSONWriter`).
public indirect enum DiscoveryJSON: Sendable, Equatable {
    case string(String)
    case int(Int)
    case bool(Bool)
    case array([DiscoveryJSON])
    case object([(String, DiscoveryJSON)])

    public static func == (a: DiscoveryJSON, b: DiscoveryJSON) -> Bool { a.serialized == b.serialized }

    /// The value of `key` in an object, `nil` otherwise.
    public subscript(key: String) -> DiscoveryJSON? {
        guard case .object(let pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    /// Compact UTF-8 JSON text.
    public var serialized: String {
        var out = ""
        write(into: &out)
        return out
    }

    private func write(into out: inout String) {
        switch self {
        case .string(let s): DiscoveryJSON.quote(s, into: &out)
        case .int(let i): out += String(i)
        case .bool(let b): out += b ? "true" : "false"
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(into: &out)
            }
            out += "]"
        case .object(let pairs):
            out += "{"
            for (i, (k, v)) in pairs.enumerated() {
                if i > 0 { out += "," }
                DiscoveryJSON.quote(k, into: &out)
                out += ":"
                v.write(into: &out)
            }
            out += "}"
        }
    }

    /// Appends `s` as a JSON string literal (RFC 8259 escapes); the one JSON quoter of the Agent module.
    static func quote(_ s: String, into out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        out += "\""
    }
}
