/// The effective configuration as JSON for the dashboard (`/api/config`), secrets masked.
///
/// Walks the configuration's values by reflection, so a section added later shows up without
/// editing this file; any field whose name says it holds a secret (`password`, `secret`, `token`)
/// is written as `"***"` when set. File *paths* of secrets are shown (they are not secrets);
/// their contents never are.
enum ConfigurationView {
    static func json(_ c: AgentConfiguration) -> [UInt8] {
        var out = ""
        write(c, name: nil, into: &out, depth: 0)
        return Array(out.utf8)
    }

    static func isSecret(_ name: String) -> Bool {
        let n = name.lowercased()
        if n.hasSuffix("file") || n.hasSuffix("path") { return false }
        return n.contains("password") || n.contains("secret") || n.contains("token")
    }

    static func quoted(_ s: String) -> String {
        var out = ""
        DiscoveryJSON.quote(s, into: &out)
        return out
    }

    private static func write(_ value: Any, name: String?, into out: inout String, depth: Int) {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            if let child = mirror.children.first { write(child.value, name: name, into: &out, depth: depth) } else { out += "null" }
            return
        }
        if let name, isSecret(name) { out += quoted("***"); return }
        switch value {
        case let v as Bool: out += v ? "true" : "false"; return
        case let v as Int: out += String(v); return
        case let v as UInt16: out += String(v); return
        case let v as UInt64: out += String(v); return
        case let v as Double: out += v.isFinite ? "\(v)" : "null"; return
        case let v as String: out += quoted(v); return
        default: break
        }
        guard depth < 8 else { out += quoted("\(value)"); return }
        switch mirror.displayStyle {
        case .struct, .class:
            out += "{"
            var first = true
            for child in mirror.children {
                guard let label = child.label else { continue }
                if !first { out += "," }
                first = false
                out += quoted(label) + ":"
                write(child.value, name: label, into: &out, depth: depth + 1)
            }
            out += "}"
        case .collection, .set:
            out += "["
            var first = true
            for child in mirror.children {
                if !first { out += "," }
                first = false
                write(child.value, name: nil, into: &out, depth: depth + 1)
            }
            out += "]"
        default:
            out += quoted("\(value)")
        }
    }
}
