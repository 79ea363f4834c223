import Foundation
import Testing
import TestSupport

/// `./scripts/demo` as a newcomer runs it: in a real terminal (tmux), stopped with Ctrl-C.
///
/// The terminal sends SIGINT to its whole foreground process group. The demo must take it alone,
/// stop the agent first (which publishes its retained `offline` on the still running broker),
/// then its subscriber and broker, and exit 0 — without a screen of `connection lost` warnings.
private let tmuxAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")

@Suite("Demo script", .serialized, .enabled(if: tmuxAvailable, "tmux is not installed (scripts/lib/common.sh installs it)"))
struct DemoScriptTests {

    /// Runs `tmux` on a private server socket; returns its standard output.
    @discardableResult
    static func tmux(_ socket: String, _ arguments: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
        p.arguments = ["-L", socket] + arguments
        // Output through a file, not a pipe: the tmux server forked by new-session would hold a
        // pipe's write end open forever.
        let path = NSTemporaryDirectory() + "tmux-out-\(UUID().uuidString)"
        FileManager.default.createFile(atPath: path, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        try out.close()
        return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// The visible screen plus its scroll-back.
    static func screen(_ socket: String) -> String {
        (try? tmux(socket, ["capture-pane", "-p", "-J", "-S", "-2000", "-t", "demo"])) ?? ""
    }

    static func waitFor(_ socket: String, timeout: Double, _ condition: (String) -> Bool) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var text = screen(socket)
        while !condition(text), Date() < deadline {
            usleep(200_000)
            text = screen(socket)
        }
        return text
    }

    @Test func ctrlCInARealTerminalStopsTheAgentBeforeTheBrokerAndExitsZero() throws {
        let root = ConfigTestSupport.packageRoot.path
        let socket = "edgemotion-demo-test-\(UUID().uuidString.prefix(8))"
        let command = "cd '\(root)' && ./scripts/demo --bin '\(AgentProcess.executable)'; echo DEMO_EXIT=$?; sleep 60"
        try Self.tmux(socket, ["new-session", "-d", "-x", "220", "-y", "50", "-s", "demo", command])
        defer { _ = try? Self.tmux(socket, ["kill-server"]) }

        // Running: the agent started and the subscriber shows live motion.
        let running = Self.waitFor(socket, timeout: 60) { $0.contains("edgemotion/demo/motion ") }
        try #require(running.contains("edgemotion/demo/motion "), "the demo did not show live topics:\n\(running)")

        try Self.tmux(socket, ["send-keys", "-t", "demo", "C-c"])
        let after = Self.waitFor(socket, timeout: 30) { $0.contains("DEMO_EXIT=") }
        let tail = after.components(separatedBy: "(Ctrl-C to stop)").last ?? after

        #expect(after.contains("DEMO_EXIT=0"), "the demo did not exit 0 after Ctrl-C:\n\(tail)")
        #expect(after.contains("== demo stopped"))
        // The agent stopped while the broker still ran: its retained offline reached the subscriber.
        #expect(tail.contains("edgemotion/demo/status offline"), "no 'offline' reached the subscriber:\n\(tail)")
        #expect(tail.contains("stopped"), "the agent did not log its graceful stop:\n\(tail)")
        for warning in ["connection lost", "connect failed", "connectionLost", "connectionFailed"] {
            #expect(!tail.contains(warning), "'\(warning)' after Ctrl-C:\n\(tail)")
        }
    }
}
