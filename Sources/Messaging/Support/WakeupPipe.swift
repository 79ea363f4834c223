#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking self-pipe that wakes a thread sleeping in `poll(2)`: any thread calls `wake()`;
/// the sleeper polls `readEnd` for `POLLIN` and calls `reset()` after waking.
///
/// Several `wake()`s before one `reset()` cost one wake-up; a full pipe already means "wake up",
/// so a failed write is not an error.
final class WakeupPipe: Sendable {
    /// Poll this for `POLLIN`.
    let readEnd: Int32
    private let writeEnd: Int32

    /// - Returns: `nil` when the process is out of file descriptors (`pipe` failed).
    init?() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Makes the next (or current) `poll` on `readEnd` return.
    func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe, so the next `poll` sleeps until the next `wake()`.
    func reset() {
        var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &buffer, { read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }
}
