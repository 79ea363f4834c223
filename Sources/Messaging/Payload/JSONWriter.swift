// Over ~400 lines on purpose: one concept, the allocation-free JSON writer. Most of the length is
// number formatting by integer arithmetic (no printf, no allocation) and the hot encoders' cursor,
// which share the buffer's invariants; split out they would have to expose them.
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
        let comma = needsComma
        emit(upTo: JSONCursor.maximumNumberLength) { out in JSONWriter.writeNumber(v, fractionDigits: fractionDigits, comma: comma, to: out) }
        needsComma = true
    }

    /// Writes `[,]v` as `value(_:fractionDigits:)` defines it at `out` (at most
    /// `JSONCursor.maximumNumberLength` bytes); returns the bytes written.
    @inlinable @inline(__always)
    static func writeNumber(_ v: Double, fractionDigits: Int, comma: Bool, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let c = comma ? 1 : 0
        if comma { out[0] = UInt8(ascii: ",") }
        guard v.isFinite else {
            (out + c).update(from: ("null" as StaticString).utf8Start, count: 4)
            return c + 4
        }
        let digits = min(max(fractionDigits, 0), 9)
        let x = v.magnitude * JSONWriter.powerOfTen(digits)
        guard x < 9.0e18 else { return c + writeScientific(v, to: out + c) }
        // Round half away from zero, exactly: below 2^53 the subtraction is exact, above it x is
        // already an integer. (Cheaper than `rounded(.toNearestOrAwayFromZero)`, a libm call.)
        var n = UInt64(x)
        if x - Double(n) >= 0.5 { n += 1 }
        // Constant divisors per digit count: multiplications, not a 64-bit division.
        let (whole, f) = JSONWriter.split(n, fractionDigits: digits)
        var fraction = UInt32(truncatingIfNeeded: f)
        var fractionCount = fraction == 0 ? 0 : digits
        while fractionCount > 0, fraction % 10 == 0 { fraction /= 10; fractionCount -= 1 }
        let negative = v < 0 && n != 0
        let length = c + (negative ? 1 : 0) + JSONWriter.digitCount(whole) + (fractionCount > 0 ? fractionCount + 1 : 0)
        // Right to left, two digits at a time.
        var i = length
        if fractionCount > 0 {
            var k = fractionCount
            while k >= 2 {
                i -= 2
                JSONWriter.writePair(Int(fraction % 100), to: out + i)
                fraction /= 100
                k -= 2
            }
            if k == 1 { i -= 1; out[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction) }
            i -= 1; out[i] = UInt8(ascii: ".")
        }
        i = JSONWriter.writeDigits(whole, endingAt: out + i, start: i)
        if negative { i -= 1; out[i] = UInt8(ascii: "-") }
        return length
    }

    /// Writes `[,]n` for a signed integer; returns the bytes written (at most 21).
    @inlinable @inline(__always)
    static func writeInteger(_ v: Int64, comma: Bool, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var i = 0
        if comma { out[0] = UInt8(ascii: ","); i = 1 }
        if v < 0 { out[i] = UInt8(ascii: "-"); i += 1 }
        let length = i + JSONWriter.digitCount(v.magnitude)
        _ = JSONWriter.writeDigits(v.magnitude, endingAt: out + length, start: length)
        return length
    }

    /// 10^digits as a Double, digits 0…9.
    @inlinable @inline(__always)
    static func powerOfTen(_ digits: Int) -> Double {
        switch digits {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        default: digits == 8 ? 1e8 : 1e9
        }
    }

    /// `(n / 10^digits, n % 10^digits)` with a constant divisor per case.
    @inlinable @inline(__always)
    static func split(_ n: UInt64, fractionDigits digits: Int) -> (UInt64, UInt64) {
        switch digits {
        case 0: (n, 0)
        case 1: (n / 10, n % 10)
        case 2: (n / 100, n % 100)
        case 3: (n / 1_000, n % 1_000)
        case 4: (n / 10_000, n % 10_000)
        case 5: (n / 100_000, n % 100_000)
        case 6: (n / 1_000_000, n % 1_000_000)
        case 7: (n / 10_000_000, n % 10_000_000)
        case 8: (n / 100_000_000, n % 100_000_000)
        default: (n / 1_000_000_000, n % 1_000_000_000)
        }
    }

    /// "00" … "99".
    @inlinable static var digitPairs: StaticString { "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899" }

    /// Writes the two digits of `pair` (0…99) at `p`.
    @inlinable @inline(__always)
    static func writePair(_ pair: Int, to p: UnsafeMutablePointer<UInt8>) {
        let table = digitPairs.utf8Start
        p[0] = table[2 &* pair]
        p[1] = table[2 &* pair &+ 1]
    }

    /// Writes the decimal digits of `n` so that they end just before `end` (which is at index
    /// `start` of the token); returns the index of the first digit.
    @inlinable @inline(__always)
    static func writeDigits(_ n: UInt64, endingAt end: UnsafeMutablePointer<UInt8>, start: Int) -> Int {
        if n < 10 {
            end[-1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: n)
            return start - 1
        }
        var rest = n
        var p = end
        while rest >= 100 {
            p -= 2
            writePair(Int(rest % 100), to: p)
            rest /= 100
        }
        if rest >= 10 {
            p -= 2
            writePair(Int(rest), to: p)
        } else {
            p -= 1
            p[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest)
        }
        return start - (end - p)
    }

    /// A `Float` written like `value(_: Double, fractionDigits:)`.
    public mutating func value(_ v: Float, fractionDigits: Int = 6) {
        value(Double(v), fractionDigits: fractionDigits)
    }

    // MARK: Trusted fragments (hot encoders)

    /// Appends `json` exactly as written, for encoders that spell out their constant structure
    /// (`,"quaternion":[`) instead of one `key`/`beginArray` call each: one copy, no escaping,
    /// no comma logic. The caller guarantees `json` is valid at this point (it must contain
    /// nothing to escape inside its keys) and says whether it ends with a complete value
    /// (`endsWithValue`: the next value needs a comma) and how it changes the nesting depth.
    @inline(__always)
    public mutating func fragment(_ json: StaticString, endsWithValue: Bool = false, depthChange: Int = 0) {
        assert(json.hasPointerRepresentation, "a fragment is a string literal")
        let count = json.utf8CodeUnitCount
        let base = json.utf8Start
        emit(count) { out in out.update(from: base, count: count) }
        needsComma = endsWithValue
        depth += depthChange
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

    /// Appends the decimal digits of `n`, left-padded with zeros to `minimumDigits`.
    private mutating func appendDigits(_ n: UInt64, minimumDigits: Int) {
        let length = max(JSONWriter.digitCount(n), minimumDigits)
        if minimumDigits <= 1 {
            emit(length) { out in _ = JSONWriter.writeDigits(n, endingAt: out + length, start: length) }
            return
        }
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
    @inlinable static func digitCount(_ n: UInt64) -> Int {
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
    /// Writes at most 23 bytes at `out`; returns the bytes written.
    @usableFromInline static func writeScientific(_ v: Double, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var i = 0
        if v < 0 { out[0] = UInt8(ascii: "-"); i = 1 }
        let m = v.magnitude
        var exponent = Int(log10(m).rounded(.down))
        var mantissa = m / pow(10.0, Double(exponent))
        if mantissa >= 10 { mantissa /= 10; exponent += 1 }
        if mantissa < 1 { mantissa *= 10; exponent -= 1 }
        var significand = UInt64((mantissa * 1e15).rounded(.towardZero))
        if significand >= 10_000_000_000_000_000 { significand /= 10; exponent += 1 }
        out[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: significand / 1_000_000_000_000_000)
        i += 1
        var rest = significand % 1_000_000_000_000_000
        if rest != 0 {
            var count = 15
            while rest % 10 == 0 { rest /= 10; count -= 1 }
            out[i] = UInt8(ascii: "."); i += 1
            var k = i + count
            i = k
            while k > i - count { k -= 1; out[k] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10); rest /= 10 }
        }
        out[i] = UInt8(ascii: "e"); i += 1
        if exponent < 0 { out[i] = UInt8(ascii: "-"); i += 1 }
        let e = UInt64(exponent.magnitude)
        let end = i + JSONWriter.digitCount(e)
        _ = JSONWriter.writeDigits(e, endingAt: out + end, start: end)
        return end
    }

    /// Appends up to `maximum` bytes that `body` writes through the pointer it is given and
    /// returns the count of: one capacity check per token.
    @inline(__always)
    private mutating func emit(upTo maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        if buffer.capacity - buffer.count < maximum {
            buffer.reserveCapacity(max(buffer.capacity * 2, buffer.count + maximum))
        }
        buffer.append(addingCapacity: maximum) { (o: inout OutputSpan<UInt8>) in
            o.withUnsafeMutableBufferPointer { storage, initialized in
                initialized += body(storage.baseAddress! + initialized)
            }
        }
    }

    // MARK: Cursor (hot encoders)

    /// Runs `body` with a cursor writing straight into the buffer's spare capacity, for encoders
    /// that write many values in a row (a batch column, one motion state): one capacity check
    /// and one array update for the whole run instead of one per token. `maximumBytes` bounds
    /// what `body` writes (numbers take at most `JSONCursor.maximumNumberLength` bytes each);
    /// the cursor traps rather than write past it. Comma and depth state carry over both ways.
    public mutating func withCursor(reserving maximumBytes: Int, _ body: (inout JSONCursor) -> Void) {
        if buffer.capacity - buffer.count < maximumBytes {
            buffer.reserveCapacity(max(buffer.capacity * 2, buffer.count + maximumBytes))
        }
        var comma = needsComma
        var depthChange = 0
        buffer.append(addingCapacity: maximumBytes) { (o: inout OutputSpan<UInt8>) in
            o.withUnsafeMutableBufferPointer { storage, initialized in
                let start = storage.baseAddress! + initialized
                var cursor = JSONCursor(start: start, end: start + maximumBytes, needsComma: comma)
                body(&cursor)
                initialized += cursor.position - start
                comma = cursor.needsComma
                depthChange = cursor.depthChange
            }
        }
        needsComma = comma
        depth += depthChange
    }
}

/// Writes JSON tokens through a raw pointer inside `JSONWriter.withCursor` (valid only during
/// that call). Same output, same comma rules as the writer's own methods.
///
/// Its methods (and the number writers under them) are `@inlinable`: the batch encoders, in
/// another module, inline them with their constant digit counts and fragments. Out of line,
/// `value(_:fractionDigits:)` alone was 20 % of the acquisition thread's instructions at 1 kHz
/// with four streams (callgrind).
public struct JSONCursor {
    /// Upper bound of the bytes one number takes, comma included.
    public static let maximumNumberLength = 32

    @usableFromInline var position: UnsafeMutablePointer<UInt8>
    @usableFromInline let end: UnsafeMutablePointer<UInt8>
    @usableFromInline var needsComma: Bool
    @usableFromInline var depthChange = 0

    fileprivate init(start: UnsafeMutablePointer<UInt8>, end: UnsafeMutablePointer<UInt8>, needsComma: Bool) {
        position = start
        self.end = end
        self.needsComma = needsComma
    }

    @inlinable @inline(__always)
    func ensure(_ count: Int) {
        precondition(end - position >= count, "JSONCursor: more bytes than withCursor(reserving:) allowed")
    }

    /// As `JSONWriter.value(_:fractionDigits:)`.
    @inlinable @inline(__always)
    public mutating func value(_ v: Double, fractionDigits: Int = 6) {
        ensure(Self.maximumNumberLength)
        position += JSONWriter.writeNumber(v, fractionDigits: fractionDigits, comma: needsComma, to: position)
        needsComma = true
    }

    /// As `JSONWriter.value(_: Int64)`.
    @inlinable @inline(__always)
    public mutating func value(_ v: Int64) {
        ensure(21)
        position += JSONWriter.writeInteger(v, comma: needsComma, to: position)
        needsComma = true
    }

    /// `{`, after a comma when a value precedes it.
    @inlinable @inline(__always)
    public mutating func beginObject() {
        ensure(2)
        if needsComma { position.pointee = UInt8(ascii: ","); position += 1 }
        position.pointee = UInt8(ascii: "{")
        position += 1
        needsComma = false
        depthChange += 1
    }

    /// As `JSONWriter.fragment(_:endsWithValue:depthChange:)`.
    @inlinable @inline(__always)
    public mutating func fragment(_ json: StaticString, endsWithValue: Bool = false, depthChange: Int = 0) {
        let count = json.utf8CodeUnitCount
        ensure(count)
        position.update(from: json.utf8Start, count: count)
        position += count
        needsComma = endsWithValue
        self.depthChange += depthChange
    }
}
