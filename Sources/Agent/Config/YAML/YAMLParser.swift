import CYAML

/// Builds a `YAMLNode` tree from YAML text with libyaml's event parser.
///
/// The only place that touches libyaml. Syntax errors become a `ConfigError` of kind `.syntax`
/// carrying libyaml's problem and context text at 1-based line and column. Aliases (`*name`)
/// and more than one document are rejected, and so is nesting deeper than `maximumDepth`
/// (checked as each collection opens, so parsing stays linear in the input: libyaml's scanner
/// costs O(depth) per token, quadratic without a bound).
enum YAMLParser {
    /// Deepest nesting of mappings and sequences accepted (the agent's own use is 4).
    static let maximumDepth = 64

    /// Parses `text`; returns `nil` for an empty document (only comments or nothing).
    static func parse(_ text: String, fileName: String) throws(ConfigError) -> YAMLNode? {
        try parse(bytes: Array(text.utf8), fileName: fileName)
    }

    /// Parses raw file bytes (so libyaml itself reports invalid UTF-8).
    static func parse(bytes input: [UInt8], fileName: String) throws(ConfigError) -> YAMLNode? {
        var bytes = input
        if bytes.isEmpty { return nil }
        let result: Result<YAMLNode?, ConfigError> = bytes.withUnsafeMutableBufferPointer { buffer in
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) != 0 else {
                return .failure(failure(fileName, nil, "libyaml could not allocate its parser", kind: .syntax))
            }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var builder = TreeBuilder()
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) != 0 else {
                    return .failure(syntaxError(parser, fileName, input))
                }
                defer { yaml_event_delete(&event) }
                do throws(ConfigError) {
                    if try builder.handle(&event, fileName: fileName) { break }
                } catch {
                    return .failure(error)
                }
            }
            return .success(builder.root)
        }
        return try result.get()
    }

    /// `syntax error: <problem> (<context>, started at L:C)` at libyaml's problem mark.
    private static func syntaxError(_ parser: yaml_parser_t, _ fileName: String, _ bytes: [UInt8]) -> ConfigError {
        let problem = parser.problem.map { String(cString: $0) } ?? "unknown problem"
        var message = "syntax error: " + problem
        if let context = parser.context.map({ String(cString: $0) }) {
            let c = parser.context_mark
            message += " (\(context) that started at line \(c.line + 1), column \(c.column + 1))"
        }
        switch parser.error {
        case YAML_READER_ERROR:
            // The reader reports a byte offset, not a line (invalid UTF-8 and such).
            if parser.problem_value != -1 { message += " (byte 0x\(String(parser.problem_value, radix: 16)))" }
            return failure(fileName, mark(ofByte: parser.problem_offset, in: bytes), message, kind: .syntax)
        default:
            let m = parser.problem_mark
            return failure(fileName, YAMLNode.Mark(line: m.line + 1, column: m.column + 1), message, kind: .syntax)
        }
    }

    /// Line and column (counted in bytes) of byte `offset`.
    private static func mark(ofByte offset: Int, in bytes: [UInt8]) -> YAMLNode.Mark {
        var line = 1
        var lineStart = 0
        for i in 0..<min(offset, bytes.count) where bytes[i] == UInt8(ascii: "\n") {
            line += 1
            lineStart = i + 1
        }
        return YAMLNode.Mark(line: line, column: offset - lineStart + 1)
    }

    fileprivate static func failure(_ file: String, _ mark: YAMLNode.Mark?, _ message: String, kind: ConfigError.Kind) -> ConfigError {
        ConfigError(kind: kind, diagnostics: [
            ConfigDiagnostic(file: file, line: mark?.line, column: mark?.column, keyPath: "", message: message)
        ])
    }
}

/// Turns the event stream into nodes with an explicit stack of open collections.
private struct TreeBuilder {
    private enum Open {
        case mapping(YAMLNode.Mark, [YAMLNode.Pair], pendingKey: YAMLNode?)
        case sequence(YAMLNode.Mark, [YAMLNode])
    }

    private var stack: [Open] = []
    private var documents = 0
    private(set) var root: YAMLNode?

    /// Consumes one event; returns true at the end of the stream.
    mutating func handle(_ event: inout yaml_event_t, fileName: String) throws(ConfigError) -> Bool {
        let mark = YAMLNode.Mark(line: event.start_mark.line + 1, column: event.start_mark.column + 1)
        switch event.type {
        case YAML_STREAM_END_EVENT:
            return true
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 {
                throw YAMLParser.failure(fileName, mark, "a second YAML document ('---') is not supported; keep every setting in one document", kind: .invalid)
            }
        case YAML_SCALAR_EVENT:
            let s = event.data.scalar
            let text = s.value.map { ptr in
                String(decoding: UnsafeBufferPointer(start: ptr, count: s.length), as: UTF8.self)
            } ?? ""
            let style: YAMLNode.ScalarStyle = switch s.style {
            case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
            case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
            case YAML_LITERAL_SCALAR_STYLE: .literal
            case YAML_FOLDED_SCALAR_STYLE: .folded
            default: .plain
            }
            add(YAMLNode(.scalar(text, style), at: mark))
        case YAML_MAPPING_START_EVENT, YAML_SEQUENCE_START_EVENT:
            guard stack.count < YAMLParser.maximumDepth else {
                throw YAMLParser.failure(fileName, mark, "nesting deeper than \(YAMLParser.maximumDepth) levels of mappings or sequences; a configuration needs at most a few", kind: .syntax)
            }
            stack.append(event.type == YAML_MAPPING_START_EVENT ? .mapping(mark, [], pendingKey: nil) : .sequence(mark, []))
        case YAML_MAPPING_END_EVENT, YAML_SEQUENCE_END_EVENT:
            switch stack.removeLast() {
            case .mapping(let m, let pairs, _): add(YAMLNode(.mapping(pairs), at: m))
            case .sequence(let m, let items): add(YAMLNode(.sequence(items), at: m))
            }
        case YAML_ALIAS_EVENT:
            let name = event.data.alias.anchor.map { String(cString: $0) } ?? ""
            throw YAMLParser.failure(fileName, mark, "aliases ('*\(name)') are not supported; write the value out in full", kind: .invalid)
        default:
            break  // stream start, document end, no event
        }
        return false
    }

    private mutating func add(_ node: YAMLNode) {
        guard let top = stack.popLast() else {
            root = node
            return
        }
        switch top {
        case .mapping(let m, var pairs, let key):
            if let key {
                pairs.append(YAMLNode.Pair(key: key, value: node))
                stack.append(.mapping(m, pairs, pendingKey: nil))
            } else {
                stack.append(.mapping(m, pairs, pendingKey: node))
            }
        case .sequence(let m, var items):
            items.append(node)
            stack.append(.sequence(m, items))
        }
    }
}
