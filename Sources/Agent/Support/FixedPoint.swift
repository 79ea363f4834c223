#if canImport(Glibc)
import Glibc
#endif

/// Numbers for people (tables, summaries) with a fixed count of fraction digits, like printf's
/// `%.*f`, without Foundation's `String(format:)`.
enum FixedPoint {
    /// `string(3.14159, digits: 2)` → `"3.14"`; `nan`/`inf` as printf spells them.
    static func string(_ value: Double, digits: Int) -> String {
        var buffer = [CChar](repeating: 0, count: 352)   // DBL_MAX in %f is 309 digits
        let d = Int32(max(0, min(digits, 17)))
        _ = buffer.withUnsafeMutableBufferPointer { b in
            withVaList([d, value]) { vsnprintf(b.baseAddress, b.count, "%.*f", $0) }
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
