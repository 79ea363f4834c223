#if canImport(Glibc)
import Glibc
#endif

/// Streams JSON into a preallocated byte buffer without heap allocation in steady state.
///
/// Create one writer per encoder with enough capacity for the largest payload, then per message:
/// `reset()`, write, and hand `withUnsafeBytes` to `MQTTClient.publish`. Only if a payload outgrows
/// the capacity does the buffer reallocate (once; the larger capacity is then kept).
///
/// Commas are inserted automatically; the caller is responsible for balanced begin/end calls and for
/// calling `key` before each value inside an object. Numbers are written by integer arithmetic (no
/// `description`, no `String` formatting): doubles get a fixed number of fraction digits, trailing
/// zeros trimmed; NaN and ±infinity become `null` (JSON has no spelling for them).
///
/// ```swift
/// var w = JSONWriter(capacity: 8192)
/// w.reset()
/// w.beginObject()
/// w.key("seq"); w.value(UInt64(42))
/// w.key("ax"); w.beginArray(); w.value(0.0123, fractionDigits: 5); w.endArray()
/// w.endObject()
/// try w.withUnsafeBytes { try client.publish(topic: t, payload: $0, qos: 0, retain: false) }
/// ```
public struct JSONWriter: Sendable {
    /// The encoded bytes so far (UTF-8 JSON).
    public private(set) var buffer: [UInt8]
    /// Whether the next value or key must be preceded by a comma.
    private var needsComma = false
    /// Open objects + arrays.
    public private(set) var depth = 0

    /// - Parameter capacity: bytes reserved up front; size it for the largest message.
    public init(capacity: Int = 4096) {
        buffer = []
        buffer.reserveCapacity(capacity)
    }

    /// Empties the buffer, keeping its capacity.
    public mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        needsComma = false
        depth = 0
    }

    /// Encoded length in bytes.
    public var count: Int { buffer.count }
    /// Reserved bytes.
    public var capacity: Int { buffer.capacity }

    /// Calls `body` with the encoded bytes (valid only during the call).
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = buffer.withUnsafeBytes { p in
            do throws(E) { return .success(try body(p)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    // MARK: Structure

    public mutating func beginObject() {
        separate()
        buffer.append(UInt8(ascii: "{"))
        needsComma = false
        depth += 1
    }

    public mutating func endObject() {
        buffer.append(UInt8(ascii: "}"))
        needsComma = true
        depth -= 1
    }

    public mutating func beginArray() {
        separate()
        buffer.append(UInt8(ascii: "["))
        needsComma = false
        depth += 1
    }

    public mutating func endArray() {
        buffer.append(UInt8(ascii: "]"))
        needsComma = true
        depth -= 1
    }

    /// Writes `"key":`. Keys are compile-time constants (no allocation); they are escaped like strings.
    public mutating func key(_ key: StaticString) {
        let comma = needsComma
        needsComma = false
        key.withUTF8Buffer { bytes in
            guard JSONWriter.isPlain(bytes) else {
                if comma { buffer.append(UInt8(ascii: ",")) }
                appendQuoted(key)
                buffer.append(UInt8(ascii: ":"))
                return
            }
            // `,"key":` in one copy.
            let c = comma ? 1 : 0
            emit(c + bytes.count + 3) { out in
                if comma { out[0] = UInt8(ascii: ",") }
                out[c] = UInt8(ascii: "\"")
                if let base = bytes.baseAddress { (out + c + 1).update(from: base, count: bytes.count) }
                out[c + 1 + bytes.count] = UInt8(ascii: "\"")
                out[c + 2 + bytes.count] = UInt8(ascii: ":")
            }
        }
    }

    // MARK: Values

    /// A string value, escaped (`"`, `\`, control characters); non-ASCII UTF-8 passes through.
    public mutating func string(_ s: String) {
        separate()
        buffer.append(UInt8(ascii: "\""))
        for b in s.utf8 { appendEscaped(b) }
        buffer.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// A compile-time constant string value.
    public mutating func string(_ s: StaticString) {
        separate()
        appendQuoted(s)
        needsComma = true
    }

    public mutating func null() {
        separate()
        appendLiteral("null")
        needsComma = true
    }

    public mutating func value(_ v: Bool) {
        separate()
        appendLiteral(v ? "true" : "false")
        needsComma = true
    }

    public mutating func value(_ v: Int) { value(Int64(v)) }

    public mutating func value(_ v: Int64) {
        separate()
        if v < 0 { buffer.append(UInt8(ascii: "-")) }
        appendDigits(v.magnitude, minimumDigits: 1)
        needsComma = true
    }

    public mutating func value(_ v: UInt64) {
        separate()
        appendDigits(v, minimumDigits: 1)
        needsComma = true
    }

    /// A number with at most `fractionDigits` (0…9) digits after the point, rounded half away from
    /// zero, trailing zeros trimmed: `value(0.1, fractionDigits: 3)` → `0.1`, `value(-2.5e-7)` → `0`.
    /// Magnitudes too large for the fixed form (|v|·10^digits ≥ 9·10¹⁸) use 16 significant digits and an
    /// exponent. NaN and ±infinity are written as `null`. Accuracy: ±0.5·10^-digits plus a few ulps of
    /// `v` (the scaling is done in Double arithmetic).
    public mutating func value(_ v: Double, fractionDigits: Int = 6) {
        guard v.isFinite else { separate(); appendLiteral("null"); needsComma = true; return }
        let digits = min(max(fractionDigits, 0), 9)
        var scale: UInt64 = 1
        for _ in 0..<digits { scale &*= 10 }
        let x = v.magnitude * Double(scale)
        guard x < 9.0e18 else { separate(); appendScientific(v); needsComma = true; return }
        // Round half away from zero, exactly: below 2^53 the subtraction is exact, above it x is
        // already an integer. (Cheaper than `rounded(.toNearestOrAwayFromZero)`, a libm call.)
        var n = UInt64(x)
        if x - Double(n) >= 0.5 { n += 1 }
        var fraction = n % scale
        var fractionCount = fraction == 0 ? 0 : digits
        while fractionCount > 0, fraction % 10 == 0 { fraction /= 10; fractionCount -= 1 }
        let whole = n / scale
        let negative = v < 0 && n != 0
        let comma = needsComma
        let length = (comma ? 1 : 0) + (negative ? 1 : 0) + JSONWriter.digitCount(whole)
            + (fractionCount > 0 ? fractionCount + 1 : 0)
        // Written right to left straight into the buffer's spare capacity.
        emit(length) { out in
            var i = length
            for _ in 0..<fractionCount {
                i -= 1; out[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction % 10); fraction /= 10
            }
            if fractionCount > 0 { i -= 1; out[i] = UInt8(ascii: ".") }
            var rest = whole
            repeat {
                i -= 1; out[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10); rest /= 10
            } while rest > 0
            if negative { i -= 1; out[i] = UInt8(ascii: "-") }
            if comma { out[0] = UInt8(ascii: ",") }
        }
        needsComma = true
    }

    /// A `Float` written like `value(_: Double, fractionDigits:)`.
    public mutating func value(_ v: Float, fractionDigits: Int = 6) {
        value(Double(v), fractionDigits: fractionDigits)
    }

    // MARK: Key + value shorthands

    public mutating func field(_ k: StaticString, _ v: Int) { key(k); value(v) }
    public mutating func field(_ k: StaticString, _ v: Int64) { key(k); value(v) }
    public mutating func field(_ k: StaticString, _ v: UInt64) { key(k); value(v) }
    public mutating func field(_ k: StaticString, _ v: Bool) { key(k); value(v) }
    public mutating func field(_ k: StaticString, _ v: Double, fractionDigits: Int = 6) {
        key(k); value(v, fractionDigits: fractionDigits)
    }
    public mutating func field(_ k: StaticString, _ v: String) { key(k); string(v) }
    public mutating func field(_ k: StaticString, _ v: StaticString) { key(k); string(v) }

    // MARK: Internals

    private mutating func separate() {
        if needsComma { buffer.append(UInt8(ascii: ",")) }
    }

    private mutating func appendLiteral(_ s: StaticString) {
        s.withUTF8Buffer { bytes in buffer.append(contentsOf: bytes) }
    }

    /// `"s"`, escaped. Keys and constant values rarely need escaping: those are copied in one go.
    private mutating func appendQuoted(_ s: StaticString) {
        buffer.append(UInt8(ascii: "\""))
        s.withUTF8Buffer { bytes in
            if JSONWriter.isPlain(bytes) {
                buffer.append(contentsOf: bytes)
            } else {
                for b in bytes { appendEscaped(b) }
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaped(_ b: UInt8) {
        switch b {
        case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\\")); buffer.append(b)
        case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\")); buffer.append(b)
        case 0x0A: buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "n"))
        case 0x0D: buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "r"))
        case 0x09: buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "t"))
        case 0x08: buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "b"))
        case 0x0C: buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "f"))
        case 0x00..<0x20, 0x7F:
            buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "u"))
            buffer.append(UInt8(ascii: "0")); buffer.append(UInt8(ascii: "0"))
            buffer.append(JSONWriter.hexDigit(b >> 4)); buffer.append(JSONWriter.hexDigit(b & 0xF))
        default: buffer.append(b)
        }
    }

    private static func hexDigit(_ n: UInt8) -> UInt8 { n < 10 ? UInt8(ascii: "0") + n : UInt8(ascii: "a") + n - 10 }

    /// Removes trailing `0` digits after a decimal point was written (the caller guarantees a non-zero
    /// digit before them). Written with an index compare: `buffer.last == x` goes through the generic
    /// `Optional ==`, which allocates in debug builds.
    private mutating func trimTrailingZeros() {
        var end = buffer.count
        while end > 0 && buffer[end - 1] == UInt8(ascii: "0") { end -= 1 }
        buffer.removeLast(buffer.count - end)
    }

    /// Appends the decimal digits of `n`, left-padded with zeros to `minimumDigits`.
    private mutating func appendDigits(_ n: UInt64, minimumDigits: Int) {
        let length = max(JSONWriter.digitCount(n), minimumDigits)
        emit(length) { out in
            var i = length
            var rest = n
            repeat {
                i -= 1; out[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10); rest /= 10
            } while rest > 0
            while i > 0 { i -= 1; out[i] = UInt8(ascii: "0") }
        }
    }

    /// Decimal digits of `n` (1 for 0).
    private static func digitCount(_ n: UInt64) -> Int {
        var count = 1
        var probe = n
        while probe >= 10 { probe /= 10; count += 1 }
        return count
    }

    /// Whether `bytes` can be written between quotes as they are (nothing to escape).
    private static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for b in bytes where b < 0x20 || b == 0x7F || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
            return false
        }
        return true
    }

    /// Appends exactly `count` bytes that `body` writes through the pointer it is given, directly
    /// into the buffer's spare capacity: one capacity check per token instead of one per byte.
    /// Grows geometrically (once) when a payload outgrows the reserved capacity.
    @inline(__always)
    private mutating func emit(_ count: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Void) {
        guard count > 0 else { return }
        if buffer.capacity - buffer.count < count {
            buffer.reserveCapacity(max(buffer.capacity * 2, buffer.count + count))
        }
        buffer.append(addingCapacity: count) { (o: inout OutputSpan<UInt8>) in
            o.withUnsafeMutableBufferPointer { storage, initialized in
                body(storage.baseAddress! + initialized)
                initialized += count
            }
        }
    }

    /// `d.ddddddddddddddde±x` with 16 significant digits (truncated, so the text never exceeds the
    /// magnitude of `v` — rounding up 1.7976931348623157e308 would overflow a reader's Double).
    private mutating func appendScientific(_ v: Double) {
        if v < 0 { buffer.append(UInt8(ascii: "-")) }
        let m = v.magnitude
        var exponent = Int(log10(m).rounded(.down))
        var mantissa = m / pow(10.0, Double(exponent))
        if mantissa >= 10 { mantissa /= 10; exponent += 1 }
        if mantissa < 1 { mantissa *= 10; exponent -= 1 }
        var significand = UInt64((mantissa * 1e15).rounded(.towardZero))
        if significand >= 10_000_000_000_000_000 { significand /= 10; exponent += 1 }
        appendDigits(significand / 1_000_000_000_000_000, minimumDigits: 1)
        let rest = significand % 1_000_000_000_000_000
        if rest != 0 {
            buffer.append(UInt8(ascii: "."))
            appendDigits(rest, minimumDigits: 15)
            trimTrailingZeros()
        }
        buffer.append(UInt8(ascii: "e"))
        if exponent < 0 { buffer.append(UInt8(ascii: "-")) }
        appendDigits(UInt64(exponent.magnitude), minimumDigits: 1)
    }
}
