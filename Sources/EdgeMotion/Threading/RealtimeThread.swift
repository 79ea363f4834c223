#if canImport(Glibc)
import Glibc
#endif
import Platform
import Logging

/// `Platform.ThreadStartError`, so a client of EdgeMotion (whose `MotionPipeline.start` throws
/// it) can name it without importing Platform.
public typealias ThreadStartError = Platform.ThreadStartError

/// A named POSIX thread running one closure, joined explicitly.
///
/// The pipeline's acquisition and processing loops each own one. Created once at start, so the
/// closure box is the only allocation.
final class RealtimeThread: @unchecked Sendable {
    private var thread: PlatformThread?
    private let starter: ThreadStarter
    let name: String

    init(name: String, starter: @escaping ThreadStarter = platformThreadStarter) {
        self.name = name
        self.starter = starter
    }

    /// Starts the thread. The name is truncated to Linux's 15 characters.
    /// - Throws: `ThreadStartError` when `pthread_create` fails.
    func start(_ body: @escaping @Sendable () -> Void) throws(ThreadStartError) {
        precondition(thread == nil, "RealtimeThread \(name) started twice")
        thread = try starter(name, body)
    }

    /// Waits for the thread to finish. Idempotent.
    func join() {
        guard let thread else { return }
        thread.join()
        self.thread = nil
    }
}
