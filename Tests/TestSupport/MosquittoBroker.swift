import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Failure to run the test broker, with what to do about it.
public struct MosquittoBrokerError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A real `mosquitto` broker (Debian's 2.0.11) on a free loopback port, for integration tests.
///
/// ```swift
/// let broker = try MosquittoBroker.start()
/// let client = try MQTTClient(options: .init(address: .init(url: broker.url), clientID: "t"))
/// ```
/// Each broker has its own temporary directory holding `mosquitto.conf` and `mosquitto.log`
/// (the broker's stdout/stderr, `log_type all`). The process is stopped in `deinit`.
public final class MosquittoBroker: @unchecked Sendable {
    /// Path of the broker executable.
    public static let executable = "/usr/sbin/mosquitto"

    /// TCP port on 127.0.0.1.
    public let port: Int
    /// `mqtt://127.0.0.1:<port>`.
    public var url: String { "mqtt://127.0.0.1:\(port)" }
    /// Temporary directory with the config and log.
    public let directory: String
    public var configPath: String { directory + "/mosquitto.conf" }
    public var logPath: String { directory + "/mosquitto.log" }

    private let lock = NSLock()
    /// Child process id while running (we spawn and reap it ourselves: Foundation's `Process` inherits
    /// the test runner's blocked signal mask, so the broker would ignore SIGTERM).
    private var childPID: pid_t?

    private init(port: Int, directory: String) {
        self.port = port
        self.directory = directory
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts a broker on a free loopback port and waits (≤ 5 s) until it accepts TCP connections.
    /// - Parameter extraConfig: extra `mosquitto.conf` lines, e.g. `max_keepalive 10` or
    ///   `retain_available false`.
    /// - Parameter port: a fixed port (e.g. one a client is already trying), nil for a free one.
    /// - Throws: `MosquittoBrokerError` saying `apt-get install mosquitto` when the broker is missing,
    ///   or quoting the broker's log when it does not come up.
    public static func start(extraConfig: String = "", port fixedPort: Int? = nil) throws -> MosquittoBroker {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw MosquittoBrokerError("\(executable) not found: install the broker with `apt-get install mosquitto`")
        }
        if let fixedPort { return try start(extraConfig: extraConfig, onPort: fixedPort) }
        // Another free port when a parallel test took this one first (`FreePortServer`).
        return try FreePortServer.start { try start(extraConfig: extraConfig, onPort: $0) }
    }

    private static func start(extraConfig: String, onPort port: Int) throws -> MosquittoBroker {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("edgemotion-mosquitto-\(getpid())-\(port)-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let broker = MosquittoBroker(port: port, directory: dir)
        var config = """
            # Test broker written by EdgeMotion's TestSupport.
            listener \(port) 127.0.0.1
            allow_anonymous true
            persistence false
            log_dest stderr
            log_type all
            connection_messages true

            """
        // Started as root, mosquitto switches to the `mosquitto` user, which could not write our temp
        // directory; staying root is fine for a loopback test broker.
        if getuid() == 0 { config += "user root\n" }
        config += extraConfig + "\n"
        try config.write(toFile: broker.configPath, atomically: true, encoding: .utf8)
        try broker.launch()
        return broker
    }

    /// Binds 127.0.0.1:0, reads the port the kernel chose, closes the socket.
    public static func freeLoopbackPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw MosquittoBrokerError("socket() failed: errno \(errno)") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw MosquittoBrokerError("bind(127.0.0.1:0) failed: errno \(errno)") }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard named == 0 else { throw MosquittoBrokerError("getsockname failed: errno \(errno)") }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port` right now.
    public static func acceptsConnections(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    private func launch() throws {
        let pid = try SpawnedProcess.spawn([MosquittoBroker.executable, "-c", configPath], logPath: logPath)
        lock.withLock { childPID = pid }
        let deadline = Date().addingTimeInterval(5)
        var exitStatus: Int32?
        while Date() < deadline {
            if MosquittoBroker.acceptsConnections(port: port) { return }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { exitStatus = status; break }
            usleep(20_000)
        }
        if exitStatus == nil {
            Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        lock.withLock { childPID = nil }
        throw MosquittoBrokerError("mosquitto did not accept connections on 127.0.0.1:\(port) within 5 s "
            + "(\(exitStatus.map { "exited, wait status \($0)" } ?? "killed")). Config \(configPath). Log:\n\(log())")
    }

    /// The broker's log so far (stdout + stderr).
    public func log() -> String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "(no log at \(logPath))"
    }

    /// The broker process id, or nil when stopped.
    public var pid: Int32? { lock.withLock { childPID } }

    private func takePID() -> pid_t? {
        lock.withLock { () -> pid_t? in defer { childPID = nil }; return childPID }
    }

    /// SIGTERM, wait ≤ 3 s, then SIGKILL. Idempotent. A paused broker gets SIGTERM while still
    /// stopped and only then SIGCONT: it wakes with the signal pending, its wait for sockets ends
    /// interrupted and it shuts down without reading what clients wrote while it was frozen. (With
    /// SIGCONT first, it sometimes read and acknowledged those publishes before the SIGTERM arrived,
    /// so the messages a test froze in flight were not in flight any more: seen as "retransmitted 0"
    /// in the fault-injection and outbox tests.)
    public func stop() {
        guard let pid = takePID() else { return }
        Glibc.kill(pid, SIGTERM)
        if !SpawnedProcess.signalAndReap(pid, SIGCONT, timeout: 3) {
            _ = SpawnedProcess.signalAndReap(pid, SIGKILL, timeout: 3)
        }
    }

    /// SIGKILL: the broker dies at once, without closing client connections cleanly.
    public func kill() {
        guard let pid = takePID() else { return }
        _ = SpawnedProcess.signalAndReap(pid, SIGKILL, timeout: 3)
    }

    /// SIGSTOP: the broker freezes; TCP connections stay open but nothing is answered.
    public func pause() {
        if let pid { Glibc.kill(pid, SIGSTOP) }
    }

    /// SIGCONT after `pause()`.
    public func resume() {
        if let pid { Glibc.kill(pid, SIGCONT) }
    }

    /// Stops and starts the broker again on the same port (mosquitto sets SO_REUSEADDR).
    public func restart() throws {
        stop()
        try launch()
    }

    /// Starts the broker again after `stop()`, on the same port with the same config (an outage of
    /// the caller's length). Does nothing while it runs.
    public func relaunch() throws {
        guard pid == nil else { return }
        try launch()
    }
}
