/// The text form the mount and calibration files share: `key = value` lines, `#` comments and
/// blank lines, then `checksum = <hex>` (FNV-1a 64 of every line above it, each with its newline),
/// then nothing but blank lines. The one reader and writer of that form; each file checks its own
/// keys and words its own advice.
enum KeyValueFileText {
    /// One `key = value` line (1-based line number; key and value without surrounding spaces).
    struct Entry: Equatable {
        var line: Int
        var key: String
        var value: String
    }

    /// Why text is not of this form.
    enum Problem: Error, Equatable {
        /// A non-blank line after the checksum line.
        case textAfterChecksum(line: Int)
        /// A line that is neither `key = value`, a comment nor blank.
        case notKeyValue(line: Int)
        /// No checksum line: truncated, or not written by edgemotion.
        case noChecksum
        /// The checksum does not match the lines above it.
        case checksumMismatch
    }

    /// The entries of `text`, in order, after the checksum matched.
    static func read(_ text: String) throws(Problem) -> [Entry] {
        var hashed = ""
        var checksum: String?
        var entries: [Entry] = []
        var lineNumber = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = String(raw)
            if checksum != nil {
                if line.allSatisfy({ $0 == " " || $0 == "\r" }) { continue }
                throw .textAfterChecksum(line: lineNumber)
            }
            let trimmed = line.trimmingSpaces
            if trimmed.hasPrefix("checksum"), let eq = trimmed.firstIndex(of: "=") {
                checksum = String(trimmed[trimmed.index(after: eq)...]).trimmingSpaces
                continue
            }
            hashed += line + "\n"
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let eq = trimmed.firstIndex(of: "=") else { throw .notKeyValue(line: lineNumber) }
            entries.append(Entry(line: lineNumber, key: String(trimmed[..<eq]).trimmingSpaces,
                                 value: String(trimmed[trimmed.index(after: eq)...]).trimmingSpaces))
        }
        guard let checksum else { throw .noChecksum }
        guard checksum == Self.checksum(of: hashed) else { throw .checksumMismatch }
        return entries
    }

    /// `body` followed by its checksum line.
    static func sealed(_ body: String) -> String { body + "checksum = \(checksum(of: body))\n" }

    /// The checksum of `body`: FNV-1a 64 over its UTF-8 bytes, as 16 hex digits.
    static func checksum(of body: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in body.utf8 {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        let s = String(h, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    /// The space-separated finite numbers of `entry`'s value; `nil` and the offending word when one
    /// is not a finite number.
    static func numbers(_ entry: Entry) -> (numbers: [Double], bad: Substring?) {
        var out: [Double] = []
        for p in entry.value.split(separator: " ") {
            guard let d = Double(p), d.isFinite else { return (out, p) }
            out.append(d)
        }
        return (out, nil)
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" || c == "\r" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" { s.removeLast() }
        return String(s)
    }
}
