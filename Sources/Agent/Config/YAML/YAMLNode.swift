/// A node of a parsed YAML document, with the position where it starts.
///
/// Deliberately small: every scalar is kept as text (types are decided by whoever reads it),
/// mappings keep their pairs in file order (so duplicate keys stay visible).
struct YAMLNode: Sendable, Equatable {
    /// A position in the text, 1-based line and column (column counts characters).
    struct Mark: Sendable, Equatable, Comparable, CustomStringConvertible {
        var line: Int
        var column: Int

        static func < (a: Mark, b: Mark) -> Bool { (a.line, a.column) < (b.line, b.column) }
        var description: String { "\(line):\(column)" }
    }

    /// How a scalar was written; only plain scalars can mean null.
    enum ScalarStyle: Sendable, Equatable {
        case plain, singleQuoted, doubleQuoted, literal, folded
    }

    /// One `key: value` entry of a mapping.
    struct Pair: Sendable, Equatable {
        var key: YAMLNode
        var value: YAMLNode
    }

    enum Content: Sendable, Equatable {
        case scalar(String, ScalarStyle)
        case mapping([Pair])
        case sequence([YAMLNode])
    }

    var content: Content
    var mark: Mark

    init(_ content: Content, at mark: Mark) {
        self.content = content
        self.mark = mark
    }

    /// The text of a scalar, `nil` for mappings and sequences.
    var scalar: String? {
        if case .scalar(let text, _) = content { return text }
        return nil
    }

    /// Whether this is YAML null: an empty plain scalar, `~` or `null` (unquoted).
    var isNull: Bool {
        guard case .scalar(let text, .plain) = content else { return false }
        return text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
    }

    /// Words for messages: `'fast'`, `a mapping`, `a list`, `nothing (null)`.
    var summary: String {
        switch content {
        case .scalar(let text, _):
            if isNull { return "nothing (null)" }
            let short = text.count > 40 ? String(text.prefix(40)) + "…" : text
            return "'" + short.replacing("\n", with: "\\n") + "'"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        }
    }

    /// For each key that appears more than once in this mapping: its later occurrence and the
    /// first one. Empty for scalars and sequences; only scalar keys are compared.
    func duplicateKeys() -> [(duplicate: YAMLNode, first: YAMLNode)] {
        guard case .mapping(let pairs) = content else { return [] }
        var seen: [String: YAMLNode] = [:]
        var result: [(duplicate: YAMLNode, first: YAMLNode)] = []
        for pair in pairs {
            guard let key = pair.key.scalar else { continue }
            if let first = seen[key] {
                result.append((pair.key, first))
            } else {
                seen[key] = pair.key
            }
        }
        return result
    }
}
