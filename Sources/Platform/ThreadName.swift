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
}
