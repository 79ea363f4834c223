/// Reads typed values out of a YAML tree, collecting a diagnostic for every problem instead of
/// stopping at the first. Each reader returns the default when the key is absent or wrong, so
/// reading can go on and later problems are reported too.
struct ConfigReader {
    /// File name used in diagnostics.
    let file: String
    /// Problems found so far, in the order found.
    private(set) var diagnostics: [ConfigDiagnostic] = []
    /// Position of every value read, by dotted key path (for checks that involve several keys).
    private var marks: [String: YAMLNode.Mark] = [:]

    init(file: String) { self.file = file }

    // MARK: Reporting

    mutating func report(_ path: String, at mark: YAMLNode.Mark?, _ message: String) {
        diagnostics.append(ConfigDiagnostic(file: file, line: mark?.line, column: mark?.column, keyPath: path, message: message))
    }

    /// Reports at the value of `path`, or at its nearest ancestor present in the file.
    mutating func report(_ path: String, _ message: String) {
        report(path, at: mark(of: path), message)
    }

    /// Where the value of `path` (or its nearest present ancestor) is; `nil` if none is.
    func mark(of path: String) -> YAMLNode.Mark? {
        var p = Substring(path)
        while true {
            if let m = marks[String(p)] { return m }
            guard let dot = p.lastIndex(of: ".") else { return marks[""] }
            p = p[..<dot]
        }
    }

    /// Whether `path` was written in the file.
    func isPresent(_ path: String) -> Bool { marks[path] != nil }

    // MARK: Sections

    /// The mapping at `node`, with unknown and duplicate keys reported. `nil` when `node` is
    /// absent or null (use defaults) or not a mapping (reported).
    mutating func section(_ node: YAMLNode?, path: String, keys: [String]) -> ConfigSection? {
        guard let node, !node.isNull else { return nil }
        marks[path] = node.mark
        guard case .mapping(let pairs) = node.content else {
            report(path, at: node.mark, "expected a mapping of keys (\(keys.joined(separator: ", "))), found \(node.summary)")
            return nil
        }
        for (duplicate, first) in node.duplicateKeys() {
            let key = duplicate.scalar ?? ""
            report(join(path, key), at: duplicate.mark,
                   "duplicate key; it is already set at line \(first.mark.line), column \(first.mark.column) — keep one of them")
        }
        var values: [String: YAMLNode] = [:]
        for pair in pairs {
            guard let key = pair.key.scalar else {
                report(path, at: pair.key.mark, "keys must be plain words, found \(pair.key.summary)")
                continue
            }
            guard keys.contains(key) else {
                var message = "unknown key"
                if let guess = Suggestion.closest(to: key, in: keys) {
                    message += "; did you mean '\(guess)'?"
                } else {
                    message += "; allowed here: " + keys.joined(separator: ", ")
                }
                report(join(path, key), at: pair.key.mark, message)
                continue
            }
            if values[key] == nil {
                values[key] = pair.value
                marks[join(path, key)] = pair.value.mark
            }
        }
        return ConfigSection(path: path, mark: node.mark, values: values)
    }

    private func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }

    // MARK: Scalars

    /// The scalar text at `key`, or `nil` after reporting a non-scalar or a null.
    private mutating func text(_ section: ConfigSection, _ key: String, expected: String) -> String? {
        guard let node = section[key] else { return nil }
        guard let text = node.scalar, !node.isNull else {
            report(section.path(key), at: node.mark, "expected \(expected), found \(node.summary)")
            return nil
        }
        return text
    }

    /// A number (Hz, seconds, …). `unit` follows the value in messages; `allowed` describes the
    /// valid range (`0 < rate ≤ 10000`) and `isAllowed` checks it.
    mutating func double(_ section: ConfigSection?, _ key: String, default value: Double, unit: String = "",
                         allowed: String, _ isAllowed: (Double) -> Bool) -> Double {
        if let section, let node = section[key], node.isNull {
            report(section.path(key), at: node.mark, "expected a number, found nothing (null); remove the key to use the default")
            return value
        }
        return optionalDouble(section, key, unit: unit, allowed: allowed, isAllowed) ?? value
    }

    /// As `double`, `nil` when absent or null.
    mutating func optionalDouble(_ section: ConfigSection?, _ key: String, unit: String = "",
                                 allowed: String, _ isAllowed: (Double) -> Bool) -> Double? {
        guard let section, let node = section[key], !node.isNull else { return nil }
        guard let text = text(section, key, expected: "a number") else { return nil }
        guard let number = ScalarSyntax.double(text) else {
            var message = "expected a number, found \(node.summary)"
            if text.contains(",") { message += " (write decimals with '.', e.g. 0.5)" }
            report(section.path(key), at: node.mark, message)
            return nil
        }
        guard isAllowed(number) else {
            report(section.path(key), at: node.mark, outOfRange(text, unit, allowed))
            return nil
        }
        return number
    }

    /// An integer, decimal or `0x…`.
    mutating func integer(_ section: ConfigSection?, _ key: String, default value: Int, unit: String = "",
                          allowed: String, _ isAllowed: (Int) -> Bool) -> Int {
        guard let section, let node = section[key] else { return value }
        guard let text = text(section, key, expected: "an integer") else { return value }
        guard let number = ScalarSyntax.integer(text) else {
            report(section.path(key), at: node.mark, "expected an integer, found \(node.summary)")
            return value
        }
        guard isAllowed(number) else {
            report(section.path(key), at: node.mark, outOfRange(text, unit, allowed))
            return value
        }
        return number
    }

    /// An integer from a fixed list (`accel_range_g: 2, 4, 8, 16`).
    mutating func integer(_ section: ConfigSection?, _ key: String, default value: Int, unit: String, oneOf allowed: [Int]) -> Int {
        let list = allowed.map(String.init).joined(separator: ", ")
        return integer(section, key, default: value, unit: unit, allowed: list, allowed.contains)
    }

    /// An unsigned 64-bit integer (seeds).
    mutating func unsigned(_ section: ConfigSection?, _ key: String, default value: UInt64) -> UInt64 {
        guard let section, let node = section[key] else { return value }
        guard let text = text(section, key, expected: "a non-negative integer") else { return value }
        guard let number = ScalarSyntax.unsigned(text) else {
            report(section.path(key), at: node.mark, "expected a non-negative integer (0…\(UInt64.max)), found \(node.summary)")
            return value
        }
        return number
    }

    /// `true`/`false` (also `yes`/`no`, `on`/`off`).
    mutating func bool(_ section: ConfigSection?, _ key: String, default value: Bool) -> Bool {
        guard let section, let node = section[key] else { return value }
        guard let text = text(section, key, expected: "true or false") else { return value }
        guard let flag = ScalarSyntax.bool(text) else {
            report(section.path(key), at: node.mark, "expected true or false (yes/no and on/off also work), found \(node.summary)")
            return value
        }
        return flag
    }

    /// Non-empty text; `nil` when absent or null. `check` may return a problem to report.
    mutating func optionalString(_ section: ConfigSection?, _ key: String, _ check: (String) -> String? = { _ in nil }) -> String? {
        guard let section, let node = section[key], !node.isNull else { return nil }
        guard let text = text(section, key, expected: "a text value") else { return nil }
        if text.isEmpty {
            report(section.path(key), at: node.mark, "must not be empty; remove the key to use the default")
            return nil
        }
        if let problem = check(text) {
            report(section.path(key), at: node.mark, problem)
            return nil
        }
        return text
    }

    /// Non-empty text with a default.
    mutating func string(_ section: ConfigSection?, _ key: String, default value: String, _ check: (String) -> String? = { _ in nil }) -> String {
        if let section, let node = section[key], node.isNull {
            report(section.path(key), at: node.mark, "expected a text value, found nothing (null); remove the key to use the default '\(value)'")
            return value
        }
        return optionalString(section, key, check) ?? value
    }

    /// One of a fixed set of words (case-sensitive), with "did you mean" for near misses.
    mutating func choice(_ section: ConfigSection?, _ key: String, default value: String, oneOf allowed: [String], ignoringCase: Bool = false) -> String {
        optionalChoice(section, key, oneOf: allowed, ignoringCase: ignoringCase) ?? value
    }

    /// As `choice`, `nil` when absent or null.
    mutating func optionalChoice(_ section: ConfigSection?, _ key: String, oneOf allowed: [String], ignoringCase: Bool = false) -> String? {
        guard let section, let node = section[key], !node.isNull else { return nil }
        guard let text = text(section, key, expected: "one of " + allowed.joined(separator: ", ")) else { return nil }
        if ignoringCase, let match = allowed.first(where: { $0.lowercased() == text.lowercased() }) { return match }
        guard allowed.contains(text) else {
            var message = "\(node.summary) is not allowed; allowed: " + allowed.joined(separator: ", ")
            if let guess = Suggestion.closest(to: text, in: allowed) { message += "; did you mean '\(guess)'?" }
            report(section.path(key), at: node.mark, message)
            return nil
        }
        return text
    }

    /// A case of a string-backed enum, by raw value.
    mutating func choice<E: RawRepresentable & CaseIterable>(_ section: ConfigSection?, _ key: String, default value: E) -> E where E.RawValue == String {
        let allowed = E.allCases.map(\.rawValue)
        return E(rawValue: choice(section, key, default: value.rawValue, oneOf: allowed)) ?? value
    }

    /// As the typed `choice`, `nil` when absent, null or not allowed (reported).
    mutating func optionalChoice<E: RawRepresentable & CaseIterable>(_ section: ConfigSection?, _ key: String, of type: E.Type) -> E? where E.RawValue == String {
        optionalChoice(section, key, oneOf: E.allCases.map(\.rawValue)).flatMap(E.init(rawValue:))
    }

    private func outOfRange(_ text: String, _ unit: String, _ allowed: String) -> String {
        (unit.isEmpty ? text : text + " " + unit) + " is out of range; allowed: " + allowed
    }
}
