import Foundation
import Testing
import Messaging
import TestSupport

/// A unix datagram socket standing in for systemd's notify socket.
final class NotifySocket: @unchecked Sendable {
    let path: String
    private let fd: Int32

    init() throws {
        path = NSTemporaryDirectory() + "em-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { p in for (i, b) in path.utf8.enumerated() { p[i] = b } }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, rc == 0 else { throw MosquittoBrokerError("cannot bind the notify socket \(path): errno \(errno)") }
        var tv = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd); unlink(path) }

    /// Every datagram received within `seconds`.
    func receive(for seconds: Double) -> [String] {
        var out: [String] = []
        let deadline = Date().addingTimeInterval(seconds)
        var buf = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { out.append(String(decoding: buf[0..<n], as: UTF8.self)) }
        }
        return out
    }
}

@Suite("systemd notify and unit", .serialized, .ownThread)
struct NotifyTests {
    @Test func theAgentSendsReadyAfterTheFirstSampleAndWatchdogWhileSamplesFlow() throws {
        let broker = try MosquittoBroker.start()
        let dir = try Reliability.tempDirectory("notify")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let notify = try NotifySocket()
        let config = try AgentProcess.writeConfig(Reliability.config(id: "notify", stateDirectory: dir))
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url],
                                     environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "600000"])
        let messages = notify.receive(for: 4)
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0, "agent log:\n\(agent.log)")
        let stopping = notify.receive(for: 0.5)
        let ready = messages.firstIndex { $0.split(separator: "\n").contains("READY=1") }
        #expect(ready != nil, "datagrams: \(messages)")
        #expect(messages.first { $0.hasPrefix("READY=1") }?.contains("STATUS=samples=") == true)
        // 600 ms watchdog → pings every 200 ms while samples flow: ≥ 10 in ~3.5 s after READY.
        let pings = messages.filter { $0 == "WATCHDOG=1" }.count
        #expect(pings >= 8, "WATCHDOG=1 × \(pings) in 4 s: \(messages.prefix(20))")
        #expect(stopping.contains { $0.hasPrefix("STOPPING=1") }, "\(stopping)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"), "systemd-analyze not installed (apt-get install systemd)"))
    func theShippedUnitPassesSystemdAnalyzeVerify() throws {
        let analyze = "/usr/bin/systemd-analyze"
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let unit = try String(contentsOf: root.appendingPathComponent("deploy/edgemotion.service"), encoding: .utf8)
        #expect(unit.contains("Type=notify"))
        #expect(unit.contains("WatchdogSec="))
        #expect(unit.contains("DynamicUser=yes"))
        #expect(!unit.contains("\nProtectKernelTunables=yes"), "IIO needs sysfs writes")
        // verify checks that ExecStart exists: point it at the binary under test.
        let dir = try Reliability.tempDirectory("unit")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/edgemotion.service"
        try unit.replacingOccurrences(of: "/usr/bin/edgemotion", with: AgentProcess.executable)
            .write(toFile: path, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: analyze)
        p.arguments = ["verify", path]
        let pipe = Pipe()
        p.standardError = pipe
        p.standardOutput = pipe
        try p.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "systemd-analyze verify: \(output)")
    }
}
