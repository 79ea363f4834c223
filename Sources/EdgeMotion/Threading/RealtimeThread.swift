#if canImport(Glibc)
import Glibc
#endif
import Platform
import Logging

/// A named POSIX thread running one closure, joined explicitly.
///
/// The pipeline's acquisition and processing loops each own one. Created once at start, so the
/// closure box is the only allocation.
final class RealtimeThread: @unchecked Sendable {
    private var thread: PlatformThread?
    let name: String

    init(name: String) { self.name = name }

    /// Starts the thread. The name is truncated to Linux's 15 characters.
    func start(_ body: @escaping @Sendable () -> Void) {
        precondition(thread == nil, "RealtimeThread \(name) started twice")
        do throws(Errno) {
            thread = try PlatformThread.start(name: name, body)
        } catch {
            preconditionFailure("pthread_create failed for \(name): \(error.code)")
        }
    }

    /// Waits for the thread to finish. Idempotent.
    func join() {
        guard let thread else { return }
        thread.join()
        self.thread = nil
    }
}
