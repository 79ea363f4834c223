/// A thread could not be created (`pthread_create` failed): the one failure of the one thread
/// starter (`PlatformThread.start`), whichever thread it was (the pipeline's `em-acquire` and
/// `em-process`, the outbox's `em-outbox`, the MQTT client's `em-mqtt`). Each owner passes it on
/// to its caller; the agent logs it as one error line and exits with status 1 at start-up.
public struct ThreadStartError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The thread's name, e.g. `em-acquire`.
    public let thread: String
    /// The `pthread_create` error (`EAGAIN` when out of threads or memory).
    public let errno: Errno

    public init(thread: String, errno: Errno) {
        self.thread = thread
        self.errno = errno
    }

    /// What the operator can do about it.
    public static let remedy = "the process is out of threads or memory: raise the thread limit "
        + "(ulimit -u, systemd TasksMax) or free memory, then start again"

    public var description: String {
        "could not start the thread \(thread): pthread_create failed: \(errno); " + Self.remedy
    }
}

/// How an owner starts its thread: `platformThreadStarter` (`PlatformThread.start`) in
/// production; tests pass one that throws to check what a failed `pthread_create` does. The
/// pipeline (`MotionService`), the outbox and the MQTT client take one; the agent passes its
/// `AgentRunner.threadStarter` to all of them.
public typealias ThreadStarter = @Sendable (_ name: String, _ body: @escaping @Sendable () -> Void) throws(ThreadStartError) -> PlatformThread

/// The production `ThreadStarter`: `PlatformThread.start`.
public let platformThreadStarter: ThreadStarter = { name, body throws(ThreadStartError) in
    try PlatformThread.start(name: name, body)
}
