#if canImport(Glibc)
import Glibc
#endif

/// A POSIX file descriptor with the calls that must retry after `EINTR`: `read`, `write`
/// (whole buffer) and `close`. A plain value: who opened it closes it.
public struct FileDescriptor: Hashable, Sendable {
    /// The descriptor number.
    public let rawValue: Int32

    @inlinable public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Opens `path` with `flags` (`O_CLOEXEC` is added), retrying `EINTR`.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(Errno) -> FileDescriptor {
        let fd = Errno.retryingInterrupts { Glibc.open(path, flags | O_CLOEXEC, mode) }
        guard fd >= 0 else { throw Errno.current }
        return FileDescriptor(rawValue: fd)
    }

    /// Reads up to `buffer.count` bytes; 0 at end of file. Retries `EINTR`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        let n = Errno.retryingInterrupts { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
        guard n >= 0 else { throw Errno.current }
        return n
    }

    /// Reads up to `bytes.count - offset` bytes into `bytes[offset...]`; 0 at end of file.
    /// Retries `EINTR`. The array form of `read(into:)` for callers that fill a `[UInt8]`.
    public func read(into bytes: inout [UInt8], from offset: Int = 0) throws(Errno) -> Int {
        let result = bytes.withUnsafeMutableBytes { b -> Result<Int, Errno> in
            Result { () throws(Errno) -> Int in try read(into: UnsafeMutableRawBufferPointer(rebasing: b[offset...])) }
        }
        return try result.get()
    }

    /// Writes all of `bytes`, retrying `EINTR` and short writes.
    public func writeAll(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            let n = Errno.retryingInterrupts { Glibc.write(rawValue, bytes.baseAddress! + offset, bytes.count - offset) }
            guard n > 0 else { throw n == 0 ? Errno(EIO) : Errno.current }
            offset += n
        }
    }

    /// Writes all of `bytes`; the error, or nil when all were written.
    public func writeAll(_ bytes: [UInt8]) -> Errno? {
        bytes.withUnsafeBytes { b -> Errno? in
            do throws(Errno) { try writeAll(b) } catch { return error }
            return nil
        }
    }

    /// `fsync(2)`, retrying `EINTR`.
    public func sync() throws(Errno) {
        guard Errno.retryingInterrupts({ fsync(rawValue) }) == 0 else { throw Errno.current }
    }

    /// Closes the descriptor. Not retried after `EINTR`: on Linux the descriptor is released
    /// either way, and a retry could close one another thread just opened.
    public func close() {
        _ = Glibc.close(rawValue)
    }
}
