#if canImport(Glibc)
import Glibc
#endif

/// `device:` — the identity of this board.
public struct DeviceSettings: Sendable, Equatable {
    /// `device.id`: appears in topics (`{device_id}`) and `meta`. Letters, digits, `_` and `-`
    /// only. `nil` means "use the host name" (see `resolvedID()`).
    public var id: String?

    public init(id: String? = nil) { self.id = id }

    /// The configured id, or the host name sanitised to `[A-Za-z0-9_-]` (other characters become
    /// `-`; `edgemotion` when the host name is unavailable or empty).
    public func resolvedID() -> String {
        if let id, !id.isEmpty { return DeviceSettings.sanitize(id) }
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "edgemotion" }
        let name = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let clean = DeviceSettings.sanitize(name)
        return clean.isEmpty ? "edgemotion" : clean
    }

    /// Whether `id` is usable as is: 1…64 characters from `[A-Za-z0-9_-]`.
    public static func isValid(id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && id.unicodeScalars.allSatisfy(isAllowed)
    }

    /// Replaces every character outside `[A-Za-z0-9_-]` by `-`.
    public static func sanitize(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { isAllowed($0) ? $0 : "-" }))
    }

    private static func isAllowed(_ s: Unicode.Scalar) -> Bool {
        switch s {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-": true
        default: false
        }
    }
}
