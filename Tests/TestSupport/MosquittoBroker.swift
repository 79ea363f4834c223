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
    private var process: Process?

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
    /// - Throws: `MosquittoBrokerError` saying `apt-get install mosquitto` when the broker is missing,
    ///   or quoting the broker's log when it does not come up.
    public static func start(extraConfig: String = "") throws -> MosquittoBroker {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw MosquittoBrokerError("\(executable) not found: install the broker with `apt-get install mosquitto`")
        }
        let port = try freeLoopbackPort()
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
        let p = Process()
        p.executableURL = URL(fileURLWithPath: MosquittoBroker.executable)
        p.arguments = ["-c", configPath]
        if !FileManager.default.fileExists(atPath: logPath) {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        }
        guard let logHandle = FileHandle(forWritingAtPath: logPath) else {
            throw MosquittoBrokerError("cannot open \(logPath) for the broker log")
        }
        logHandle.seekToEndOfFile()
        p.standardOutput = logHandle
        p.standardError = logHandle
        do { try p.run() } catch {
            throw MosquittoBrokerError("cannot launch \(MosquittoBroker.executable): \(error) — `apt-get install mosquitto`")
        }
        lock.withLock { process = p }
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if MosquittoBroker.acceptsConnections(port: port) { return }
            if !p.isRunning { break }
            usleep(20_000)
        }
        let running = p.isRunning
        if running { p.terminate() }
        throw MosquittoBrokerError("mosquitto did not accept connections on 127.0.0.1:\(port) within 5 s "
            + "(\(running ? "still running" : "exited with status \(p.terminationStatus)")). Config \(configPath). Log:\n\(log())")
    }

    /// The broker's log so far (stdout + stderr).
    public func log() -> String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "(no log at \(logPath))"
    }

    /// The broker process id, or nil when stopped.
    public var pid: Int32? {
        lock.withLock { process.flatMap { $0.isRunning ? $0.processIdentifier : nil } }
    }

    /// SIGTERM, wait ≤ 3 s, then SIGKILL. Idempotent.
    public func stop() {
        guard let p = lock.withLock({ () -> Process? in defer { process = nil }; return process }) else { return }
        guard p.isRunning else { return }
        Glibc.kill(p.processIdentifier, SIGCONT)   // a paused broker cannot handle SIGTERM
        p.terminate()
        let deadline = Date().addingTimeInterval(3)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        if p.isRunning {
            Glibc.kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
        }
    }

    /// SIGKILL: the broker dies without closing sessions cleanly.
    public func kill() {
        guard let p = lock.withLock({ () -> Process? in defer { process = nil }; return process }) else { return }
        guard p.isRunning else { return }
        Glibc.kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
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
}
