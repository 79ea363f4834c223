/// Locale-independent parsing of decimal numbers straight from UTF-8 bytes, without creating
/// strings: `-1.25`, `3e-4`, `nan`, `inf`. Used for recordings and IIO sysfs values, whose
/// decimal separator is always `.` whatever `LC_NUMERIC` says.
enum DecimalParser {
    /// Parses the whole of `bytes` as a number; `nil` when it is not one (or is empty).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        let n = bytes.count
        // Trim spaces and carriage returns.
        var end = n
        while end > 0, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x0D { end -= 1 }
        while i < end, bytes[i] == 0x20 { i += 1 }
        guard i < end else { return nil }
        var negative = false
        if bytes[i] == UInt8(ascii: "-") { negative = true; i += 1 } else if bytes[i] == UInt8(ascii: "+") { i += 1 }
        guard i < end else { return nil }
        let c0 = bytes[i] | 0x20
        if c0 == UInt8(ascii: "n") {  // nan
            return end - i == 3 && (bytes[i + 1] | 0x20) == UInt8(ascii: "a") && (bytes[i + 2] | 0x20) == UInt8(ascii: "n") ? .nan : nil
        }
        if c0 == UInt8(ascii: "i") {  // inf / infinity
            return end - i >= 3 ? (negative ? -.infinity : .infinity) : nil
        }
        var mantissa: UInt64 = 0
        var exponent = 0
        var digits = 0
        var sawDigit = false
        while i < end, bytes[i] >= 0x30, bytes[i] <= 0x39 {
            if digits < 19 { mantissa = mantissa * 10 + UInt64(bytes[i] - 0x30); if mantissa > 0 { digits += 1 } } else { exponent += 1 }
            sawDigit = true
            i += 1
        }
        if i < end, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < end, bytes[i] >= 0x30, bytes[i] <= 0x39 {
                if digits < 19 { mantissa = mantissa * 10 + UInt64(bytes[i] - 0x30); exponent -= 1; if mantissa > 0 { digits += 1 } }
                sawDigit = true
                i += 1
            }
        }
        guard sawDigit else { return nil }
        if i < end, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var expNegative = false
            if i < end, bytes[i] == UInt8(ascii: "-") { expNegative = true; i += 1 } else if i < end, bytes[i] == UInt8(ascii: "+") { i += 1 }
            var e = 0
            var sawExp = false
            while i < end, bytes[i] >= 0x30, bytes[i] <= 0x39 {
                if e < 10_000 { e = e * 10 + Int(bytes[i] - 0x30) }
                sawExp = true
                i += 1
            }
            guard sawExp else { return nil }
            exponent += expNegative ? -e : e
        }
        guard i == end else { return nil }
        var value = Double(mantissa)
        if exponent != 0 {
            // Divide rather than multiply by a negative power: 10^k is exact up to 1e22, so
            // typical sensor values (≤ 15 fraction digits) are correctly rounded.
            if exponent < 0 {
                value /= powerOfTen(-exponent)
            } else {
                value *= powerOfTen(exponent)
            }
        }
        return negative ? -value : value
    }

    /// Parses `text` (convenience for tests and config-sized inputs).
    static func parse(_ text: String) -> Double? {
        var copy = text
        return copy.withUTF8 { parse($0) }
    }

    private static func powerOfTen(_ k: Int) -> Double {
        if k <= 22 { return exactPowers[k] }
        var r = 1.0
        var base = 10.0
        var e = k
        while e > 0 {
            if e & 1 == 1 { r *= base }
            base *= base
            e >>= 1
        }
        return r
    }

    private static let exactPowers: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]
}
