import MotionCore

/// Parsers for IIO sysfs attribute text. Locale-independent (the kernel always writes `.`), and
/// tolerant of the trailing newline and spaces sysfs adds.
public enum IIOSysfsValues {
    /// A number such as `0.000598`, `-12`, `1e-3`; `nil` when the text is not one.
    public static func number(_ text: String) -> Double? {
        var s = Substring(text)
        while let c = s.last, c == "\n" || c == " " || c == "\t" || c == "\0" { s = s.dropLast() }
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        return DecimalParser.parse(String(s))
    }

    /// Number straight from a NUL-terminated C buffer filled by libiio (allocation-free).
    static func number(cString buffer: UnsafeBufferPointer<CChar>, length: Int) -> Double? {
        guard length > 0, let base = buffer.baseAddress else { return nil }
        return base.withMemoryRebound(to: UInt8.self, capacity: length) { p in
            var n = min(length, buffer.count)
            while n > 0, p[n - 1] == 0 || p[n - 1] == 0x0A || p[n - 1] == 0x20 || p[n - 1] == 0x09 { n -= 1 }
            return DecimalParser.parse(UnsafeBufferPointer(start: p, count: n))
        }
    }

    /// A `*_available` list: either discrete values (`25 50 100 200`) or a range `[min step max]`,
    /// expanded (at most 4096 entries). Sorted ascending, duplicates removed.
    public static func availableValues(_ text: String) -> [Double] {
        let trimmed = text.trimmingCharacters(in: " \n\t")
        if trimmed.hasPrefix("["), trimmed.hasSuffix("]") {
            let parts = trimmed.dropFirst().dropLast().split(separator: " ").compactMap { number(String($0)) }
            guard parts.count == 3, parts[1] > 0, parts[2] >= parts[0] else { return [] }
            var out: [Double] = []
            var v = parts[0]
            while v <= parts[2] + 1e-9, out.count < 4096 { out.append(v); v += parts[1] }
            return out
        }
        return Array(Set(trimmed.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { number(String($0)) })).sorted()
    }

    /// A mount matrix `"x1, y1, z1; x2, y2, z2; x3, y3, z3"` (rows separated by `;`), which maps
    /// sensor axes to the board frame: `v_board = M · v_sensor`. `nil` when malformed.
    public static func mountMatrix(_ text: String) -> RotationMatrix? {
        let rows = text.trimmingCharacters(in: " \n\t").split(separator: ";")
        guard rows.count == 3 else { return nil }
        var m: [Double] = []
        for row in rows {
            let cells = row.split(separator: ",").compactMap { number(String($0)) }
            guard cells.count == 3 else { return nil }
            m += cells
        }
        return RotationMatrix(m11: m[0], m12: m[1], m13: m[2], m21: m[3], m22: m[4], m23: m[5], m31: m[6], m32: m[7], m33: m[8])
    }

    /// The value of `available` closest to `requested` from above (else the largest).
    public static func pick(_ available: [Double], atLeast requested: Double) -> Double? {
        available.first(where: { $0 >= requested - 1e-9 }) ?? available.last
    }
}

extension String {
    /// Drops leading and trailing characters contained in `set` (no Foundation).
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}
