#if canImport(Glibc)
import Glibc
#endif

/// Names of the agent's threads, as `top -H`, `ps -L` and `/proc/<pid>/task/*/comm` show them —
/// so a per-thread CPU or wake-up count (and a log reader) can tell them apart.
public enum ThreadName {
    /// Names the calling thread, truncated to 15 bytes (the kernel's limit).
    /// Glibc's `pthread_setname_np` is not imported into Swift; this writes the same file.
    public static func setCurrent(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let short = String(name.utf8.prefix(15)) ?? name
        _ = short.withCString { write(fd, $0, strlen($0)) }
        close(fd)
    }

    /// The calling thread's name (as `setCurrent` wrote it, or the process name), "" if unreadable.
    public static var current: String {
        let fd = open("/proc/thread-self/comm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 32)
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return "" }
        return String(decoding: bytes[..<n].prefix { $0 != 0x0A }, as: UTF8.self)
    }
}
