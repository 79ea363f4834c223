/// Builds InfluxDB line protocol into a preallocated byte buffer: no allocation in steady state
/// (the buffer grows once if a batch needs more, then keeps its capacity).
///
/// Only what the agent writes is supported: measurement and tag keys are static ASCII words, tag
/// values are escaped (`,`, `=`, space), fields are floats (fixed decimals), integers (`i`) and
/// booleans; the timestamp is integer nanoseconds since the Unix epoch (UTC).
public struct LineProtocolWriter: Sendable {
    public private(set) var buffer: [UInt8]
    private var fieldsInLine = 0

    public init(capacity: Int) {
        buffer = []
        buffer.reserveCapacity(capacity)
    }

    public mutating func reset() { buffer.removeAll(keepingCapacity: true) }

    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = buffer.withUnsafeBytes { p in
            do throws(E) { return .success(try body(p)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Appends pre-escaped bytes (a line's `measurement,tag=value` prefix built once).
    public mutating func raw(_ bytes: [UInt8]) { buffer.append(contentsOf: bytes) }

    public mutating func raw(_ s: StaticString) {
        s.withUTF8Buffer { buffer.append(contentsOf: $0) }
    }

    /// `,key=value` with the value escaped as a tag value.
    public mutating func tag(_ key: StaticString, _ value: StaticString) {
        buffer.append(UInt8(ascii: ","))
        raw(key)
        buffer.append(UInt8(ascii: "="))
        raw(value)
    }

    /// Ends the measurement and tags; fields follow.
    public mutating func beginFields() {
        buffer.append(UInt8(ascii: " "))
        fieldsInLine = 0
    }

    /// A float field with `fractionDigits` decimals; non-finite values are omitted (line
    /// protocol has no NaN or infinity).
    public mutating func field(_ key: StaticString, _ v: Double, fractionDigits: Int = 6) {
        guard v.isFinite else { return }
        separateField(key)
        appendFixed(v, fractionDigits)
    }

    /// An integer field (`42i`).
    public mutating func field(_ key: StaticString, _ v: Int64) {
        separateField(key)
        if v < 0 { buffer.append(UInt8(ascii: "-")) }
        appendDigits(v.magnitude)
        buffer.append(UInt8(ascii: "i"))
    }

    public mutating func field(_ key: StaticString, _ v: Bool) {
        separateField(key)
        raw(v ? "true" : "false")
    }

    /// Ends the line with its timestamp (ns since the Unix epoch, UTC).
    public mutating func endLine(timestampNanos: Int64) {
        buffer.append(UInt8(ascii: " "))
        if timestampNanos < 0 { buffer.append(UInt8(ascii: "-")) }
        appendDigits(timestampNanos.magnitude)
        buffer.append(UInt8(ascii: "\n"))
    }

    /// `value` escaped for use as a tag value (commas, equals signs and spaces).
    public static func escapeTagValue(_ value: String) -> [UInt8] {
        var out: [UInt8] = []
        for b in value.utf8 {
            if b == UInt8(ascii: ",") || b == UInt8(ascii: "=") || b == UInt8(ascii: " ") || b == UInt8(ascii: "\\") {
                out.append(UInt8(ascii: "\\"))
            }
            out.append(b)
        }
        return out
    }

    private mutating func separateField(_ key: StaticString) {
        if fieldsInLine > 0 { buffer.append(UInt8(ascii: ",")) }
        fieldsInLine += 1
        raw(key)
        buffer.append(UInt8(ascii: "="))
    }

    private mutating func appendDigits(_ n: UInt64) {
        if n == 0 {
            buffer.append(UInt8(ascii: "0"))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var m = n
        withUnsafeMutableBytes(of: &digits) { d in
            while m > 0 {
                d[count] = UInt8(ascii: "0") + UInt8(m % 10)
                m /= 10
                count += 1
            }
            for i in stride(from: count - 1, through: 0, by: -1) { buffer.append(d[i]) }
        }
    }

    /// Fixed-point decimal, trailing zeros trimmed (`1.5`, `-0.000123`, `2`).
    private mutating func appendFixed(_ v: Double, _ digits: Int) {
        let d = max(0, min(digits, 12))
        var scale: UInt64 = 1
        for _ in 0..<d { scale *= 10 }
        let magnitude = abs(v)
        guard magnitude < 9e18 / Double(scale) else {
            // Astronomically large: still valid line protocol, with an exponent.
            buffer.append(contentsOf: Array("\(v)".utf8))
            return
        }
        let scaled = UInt64((magnitude * Double(scale)).rounded())
        if scaled != 0 && v < 0 { buffer.append(UInt8(ascii: "-")) }
        appendDigits(scaled / scale)
        var fraction = scaled % scale
        guard fraction != 0 else { return }
        var width = d
        while fraction % 10 == 0 { fraction /= 10; width -= 1 }
        buffer.append(UInt8(ascii: "."))
        var digitsOfFraction = 0
        var f = fraction
        repeat { f /= 10; digitsOfFraction += 1 } while f > 0
        for _ in 0..<(width - digitsOfFraction) { buffer.append(UInt8(ascii: "0")) }
        appendDigits(fraction)
    }
}
