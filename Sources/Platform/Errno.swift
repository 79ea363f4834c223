#if canImport(Glibc)
import Glibc
#endif

/// A POSIX error number with its `strerror` text: the one way the agent turns `errno` into words.
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    /// The value, e.g. `ENOENT` (2).
    public var code: Int32

    @inlinable public init(_ code: Int32) { self.code = code }

    /// The calling thread's `errno` now.
    @inlinable public static var current: Errno { Errno(errno) }

    /// `strerror` text, e.g. `No such file or directory` (`errno N` when the C library has none).
    public var text: String {
        guard let s = strerror(code) else { return "errno \(code)" }
        return String(cString: s)
    }

    /// Text plus the value, e.g. `No such device or address (errno 6)`.
    public var description: String {
        guard strerror(code) != nil else { return "errno \(code)" }
        return "\(text) (errno \(code))"
    }

    /// Calls `body` again while it returns -1 with `errno == EINTR` (a signal interrupted it);
    /// returns the first other result, `errno` intact.
    @inlinable
    public static func retryingInterrupts<R: BinaryInteger>(_ body: () -> R) -> R {
        while true {
            let r = body()
            if r == -1 && errno == EINTR { continue }
            return r
        }
    }
}
