import Foundation

/// The real `edgemotion` executable run as a child process, for end-to-end tests.
///
/// The binary is the one SwiftPM built next to the test bundle (`swift build --build-tests`
/// builds it), so tests exercise exactly what users run.
public final class AgentProcess: @unchecked Sendable {
    public let process = Process()
    public let logPath: String

    /// The `edgemotion` binary beside the running test bundle.
    public static var executable: String {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = testBinary.deletingLastPathComponent()
        // Linux: <bin>/EdgeMotionPackageTests.xctest ; Darwin-style bundles nest deeper.
        while !FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent("edgemotion").path),
              dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("edgemotion").path
    }

    /// Starts `edgemotion` with `arguments`; its standard output and error go to `logPath`.
    /// `environment` entries are added to the test process's environment.
    public init(_ arguments: [String], environment: [String: String] = [:]) throws {
        logPath = NSTemporaryDirectory() + "edgemotion-agent-\(UUID().uuidString).log"
        TemporaryFiles.removeAtExit(logPath)
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.executableURL = URL(fileURLWithPath: AgentProcess.executable)
        // `run` without a config would use the default /var/lib/edgemotion, whose spool one agent
        // only may hold: give it a config that names a state directory of its own.
        var arguments = arguments
        if arguments.first == "run" && !arguments.contains("--config") {
            arguments += ["--config", try AgentProcess.writeConfig("")]
        }
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = log
        process.standardError = log
        try process.run()
    }

    /// Writes a config file for a test and returns its path. A config that names no
    /// `state_directory` gets a fresh one of its own, so agents of tests running in parallel never
    /// share the default `/var/lib/edgemotion` (its spool can be opened by one agent only).
    public static func writeConfig(_ yaml: String) throws -> String {
        let id = UUID().uuidString
        let path = NSTemporaryDirectory() + "edgemotion-test-\(id).yaml"
        TemporaryFiles.removeAtExit(path)
        var text = yaml
        if !yaml.contains("state_directory") {
            let state = NSTemporaryDirectory() + "edgemotion-test-state-\(id)"
            TemporaryFiles.removeAtExit(state)
            text += (yaml.hasSuffix("\n") ? "" : "\n") + "state_directory: \(state)\n"
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    /// Sends `signal` (SIGTERM by default).
    public func signal(_ signo: Int32 = SIGTERM) { kill(process.processIdentifier, signo) }

    /// Waits for the process to exit; returns its exit status, or nil on timeout (then kills it).
    @discardableResult
    public func waitForExit(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }

    /// Everything the agent logged.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
