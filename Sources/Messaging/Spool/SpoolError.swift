#if canImport(Glibc)
import Glibc
#endif
import Platform

/// A spool file operation failed; `description` names the file and the system's reason.
public struct SpoolError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var operation: String
    public var errno: Int32
    /// What to do; defaults to checking the state directory.
    public var hint = "check that the state directory exists, is writable and has free space"
    public var description: String {
        "spool \(path): \(operation) failed: \(Errno(errno)); \(hint)"
    }

    public init(path: String, operation: String, errno: Int32) {
        self.path = path
        self.operation = operation
        self.errno = errno
    }
}

