#if canImport(Glibc)
import Glibc
#endif
import Platform

/// A recording file or directory problem, naming the path and what to do.
public struct RecordingError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var detail: String

    public init(path: String, detail: String) {
        self.path = path
        self.detail = detail
    }

    /// From `code` (the current `errno` when not given).
    static func system(_ path: String, _ action: String, code: Int32 = errno) -> RecordingError {
        var hint = ""
        if code == ENOSPC { hint = "; the disk is full: lower recorder.max_total_mb or free space" }
        if code == EACCES || code == EROFS { hint = "; check that the directory exists and is writable by the agent's user (state_directory)" }
        return RecordingError(path: path, detail: "cannot \(action): \(Errno(code).text)\(hint)")
    }

    public var description: String { "\(path): \(detail)" }
}
