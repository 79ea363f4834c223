#if canImport(Glibc)
import Glibc
#endif
import Logging

/// A named POSIX thread running one closure, joined explicitly.
///
/// The pipeline's acquisition and processing loops each own one. Created once at start, so the
/// closure box is the only allocation.
final class RealtimeThread: @unchecked Sendable {
    private var thread = pthread_t()
    private var started = false
    let name: String

    private final class Box {
        let body: () -> Void
        let name: String
        init(_ body: @escaping () -> Void, name: String) {
            self.body = body
            self.name = name
        }
    }

    init(name: String) { self.name = name }

    /// Starts the thread. The name is truncated to Linux's 15 characters.
    func start(_ body: @escaping @Sendable () -> Void) {
        precondition(!started, "RealtimeThread \(name) started twice")
        let box = Unmanaged.passRetained(Box(body, name: name)).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            ThreadName.setCurrent(box.name)
            box.body()
            return nil
        }, box)
        precondition(rc == 0, "pthread_create failed for \(name): \(rc)")
        started = true
    }

    /// Waits for the thread to finish. Idempotent.
    func join() {
        guard started else { return }
        pthread_join(thread, nil)
        started = false
    }
}
