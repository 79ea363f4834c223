#if canImport(Glibc)
import Glibc
#endif

/// A named, joinable POSIX thread: the one thread starter (the pipeline's acquisition and
/// processing loops, the MQTT network thread, the outbox pump).
///
/// Every thread in `Sources` starts here (owners take a `ThreadStarter`, `platformThreadStarter`
/// in production). One failure policy: `start` throws `ThreadStartError` (the thread's name, the
/// `pthread_create` error, what to do) and every owner passes it on to its caller, never a crash
/// or a silently missing thread. The closure box is the only allocation.
public struct PlatformThread: Sendable {
    /// The thread, for `pthread_join` / `pthread_detach`.
    public let id: pthread_t

    private final class Box {
        let body: () -> Void
        let name: String
        init(_ body: @escaping () -> Void, name: String) {
            self.body = body
            self.name = name
        }
    }

    /// Starts `body` on a new thread named `name` (truncated to Linux's 15 characters).
    /// - Throws: `ThreadStartError` with the `pthread_create` error (`EAGAIN` when out of threads
    ///   or memory).
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(ThreadStartError) -> PlatformThread {
        let box = Unmanaged.passRetained(Box(body, name: name)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            ThreadName.setCurrent(box.name)
            box.body()
            return nil
        }, box)
        guard rc == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            throw ThreadStartError(thread: name, errno: Errno(rc))
        }
        return PlatformThread(id: thread)
    }

    private init(id: pthread_t) { self.id = id }

    /// Waits for the thread to finish. Call once (or `detach` once).
    public func join() { pthread_join(id, nil) }

    /// Lets the thread finish on its own; its resources are released when it exits.
    public func detach() { pthread_detach(id) }

    /// Whether the caller is this thread.
    public var isCurrent: Bool { pthread_equal(pthread_self(), id) != 0 }
}
