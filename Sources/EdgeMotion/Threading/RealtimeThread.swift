#if canImport(Glibc)
import Glibc
#endif
import Platform
import Logging

/// How a pipeline thread is started: `PlatformThread.start` in production; tests pass one that
/// fails to check what a failed `pthread_create` does (`package`: the agent's tests inject one
/// through `MotionService` and `AgentRunner.threadStarter`).
package typealias ThreadStarter = @Sendable (_ name: String, _ body: @escaping @Sendable () -> Void) throws(Errno) -> PlatformThread

/// The production `ThreadStarter`: `PlatformThread.start`.
package let platformThreadStarter: ThreadStarter = { name, body throws(Errno) in try PlatformThread.start(name: name, body) }

/// A pipeline thread could not be created (`pthread_create` failed).
public struct PipelineThreadStartError: Error, Sendable, CustomStringConvertible {
    /// The thread's name, e.g. `em-acquire`.
    public let thread: String
    /// The `pthread_create` error (`EAGAIN` when out of threads or memory).
    public let errno: Errno

    /// What the operator can do about it.
    public static let remedy = "the process is out of threads or memory: raise the thread limit "
        + "(ulimit -u, systemd TasksMax) or free memory, then start again"

    public var description: String {
        "could not start the pipeline thread \(thread): pthread_create failed: \(errno); " + Self.remedy
    }
}

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
    /// - Throws: `PipelineThreadStartError` when `pthread_create` fails.
    func start(_ body: @escaping @Sendable () -> Void) throws(PipelineThreadStartError) {
        precondition(thread == nil, "RealtimeThread \(name) started twice")
        do throws(Errno) {
            thread = try starter(name, body)
        } catch {
            throw PipelineThreadStartError(thread: name, errno: error)
        }
    }

    /// Waits for the thread to finish. Idempotent.
    func join() {
        guard let thread else { return }
        thread.join()
        self.thread = nil
    }
}
