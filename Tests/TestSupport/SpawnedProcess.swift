import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real server process (Prometheus, headless Chromium, …) started for a test, its standard output
/// and error appended to `logPath`, stopped in `deinit`.
///
/// Spawned with `posix_spawn` and a cleared signal mask: Foundation's `Process` inherits the test
/// runner's blocked signals, so a child would ignore SIGTERM.
public final class SpawnedProcess: @unchecked Sendable {
    public let executable: String
    public let logPath: String
    private let lock = NSLock()
    private var childPID: pid_t?

    /// Starts `executable` with `arguments`.
    /// - Throws: `MosquittoBrokerError` naming the executable when it cannot be started.
    public init(_ executable: String, _ arguments: [String], logPath: String? = nil) throws {
        self.executable = executable
        self.logPath = logPath ?? NSTemporaryDirectory() + "edgemotion-child-\(UUID().uuidString).log"
        TemporaryFiles.removeAtExit(self.logPath)
        let pid = try Self.spawn([executable] + arguments, logPath: self.logPath)
        lock.withLock { childPID = pid }
    }

    deinit { stop() }

    /// `posix_spawn`s `argv` with default signal handling, stdin from /dev/null, stdout and
    /// stderr appended to `logPath`; returns the child's pid.
    public static func spawn(_ argv: [String], logPath: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for sig in [SIGTERM, SIGINT, SIGPIPE, SIGHUP, SIGCHLD] { sigaddset(&defaults, sig) }
        posix_spawnattr_setsigmask(&attr, &empty)
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var cArgs = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, argv[0], &actions, &attr, &cArgs, environ)
        guard rc == 0 else { throw MosquittoBrokerError("cannot launch \(argv[0]): \(String(cString: strerror(rc)))") }
        return pid
    }

    /// Sends `signal` and waits ≤ `timeout` seconds for the child to exit; returns whether it did.
    public static func signalAndReap(_ pid: pid_t, _ signal: Int32, timeout: Double) -> Bool {
        Glibc.kill(pid, signal)
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid || r < 0 { return true }
            if Date() >= deadline { return false }
            usleep(5_000)
        }
    }

    public var pid: pid_t? { lock.withLock { childPID } }

    /// Whether the child is still running (reaps it when it has exited).
    public var isRunning: Bool {
        lock.withLock {
            guard let pid = childPID else { return false }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { childPID = nil; return false }
            return true
        }
    }

    /// What the child wrote so far.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// SIGTERM, wait ≤ `timeout` s, then SIGKILL. Idempotent.
    public func stop(timeout: Double = 5) {
        guard let pid = lock.withLock({ () -> pid_t? in defer { childPID = nil }; return childPID }) else { return }
        if !Self.signalAndReap(pid, SIGTERM, timeout: timeout) { _ = Self.signalAndReap(pid, SIGKILL, timeout: 3) }
    }
}
