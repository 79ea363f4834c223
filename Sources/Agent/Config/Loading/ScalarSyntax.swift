/// Locale-independent parsing of YAML scalar text into numbers and booleans.
///
/// Uses Swift's own `Double(_:)`/`Int(_:radix:)` (never `strtod`), so `0.5` means one half
/// whatever `LC_NUMERIC` says.
enum ScalarSyntax {
    /// A finite decimal number (`200`, `0.5`, `-3`, `1e3`); `nil` for anything else, including
    /// `inf`, `nan` and `1,5`.
    static func double(_ text: String) -> Double? {
        guard let first = text.first, first.isASCII, !first.isWhitespace,
              text.allSatisfy({ $0.isASCII }),
              !text.lowercased().contains("x"),  // no hex floats
              let value = Double(text), value.isFinite
        else { return nil }
        return value
    }

    /// An integer in decimal (`104`, `-1`) or with a `0x`/`0o`/`0b` prefix (`0x68`).
    static func integer(_ text: String) -> Int? {
        var digits = Substring(text)
        var negative = false
        if let sign = digits.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            digits = digits.dropFirst()
        }
        var radix = 10
        let lower = digits.lowercased()
        if lower.hasPrefix("0x") { radix = 16 } else if lower.hasPrefix("0o") { radix = 8 } else if lower.hasPrefix("0b") { radix = 2 }
        if radix != 10 { digits = digits.dropFirst(2) }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isHexDigit }),
              let magnitude = Int(digits, radix: radix)
        else { return nil }
        return negative ? -magnitude : magnitude
    }

    /// An unsigned 64-bit integer, decimal or `0x` hexadecimal.
    static func unsigned(_ text: String) -> UInt64? {
        let lower = text.lowercased()
        if lower.hasPrefix("0x") { return UInt64(lower.dropFirst(2), radix: 16) }
        guard text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt64(text, radix: 10)
    }

    /// `true`/`yes`/`on` or `false`/`no`/`off`, any letter case.
    static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on": true
        case "false", "no", "off": false
        default: nil
        }
    }
}
