import Foundation
import Testing
import TestSupport

private let promtoolAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool")
private let curlAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")

/// The real agent with `http.enabled` on a free loopback port, read with curl, checked with
/// Prometheus' own `promtool`.
@Suite("Agent HTTP", .serialized, .enabled(if: curlAvailable, "curl is not installed"))
struct AgentHTTPTests {
    /// Runs `tool` and returns (exit status, standard output).
    static func run(_ tool: String, _ arguments: [String], stdin: Data? = nil) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        let path = NSTemporaryDirectory() + "out-\(UUID().uuidString)"
        FileManager.default.createFile(atPath: path, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        p.standardOutput = out
        p.standardError = out
        var inPath: String?
        if let stdin {
            inPath = NSTemporaryDirectory() + "in-\(UUID().uuidString)"
            FileManager.default.createFile(atPath: inPath!, contents: stdin)
            p.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inPath!))
        } else { p.standardInput = FileHandle.nullDevice }
        defer { if let inPath { try? FileManager.default.removeItem(atPath: inPath) } }
        try p.run()
        p.waitUntilExit()
        try out.close()
        return (p.terminationStatus, (try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
    }

    /// HTTP status of a GET, with extra curl arguments.
    static func status(_ url: String, _ extra: [String] = []) throws -> Int {
        Int(try run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10"] + extra + [url]).1) ?? -1
    }

    static func startAgent() throws -> (MosquittoBroker, AgentProcess, String) {
        let broker = try MosquittoBroker.start()
        let state = NSTemporaryDirectory() + "em-http-\(UUID().uuidString)"
        let config = try AgentProcess.writeConfig("""
            device: { id: web }
            source: { type: simulator, rate: 200, simulator: { scenario: walking, real_time: true, magnetometer: true } }
            state_directory: \(state)
            http: { enabled: true, listen: "127.0.0.1:0" }
            """)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let r = agent.log.range(of: #"url=http://127\.0\.0\.1:[0-9]+/"#, options: .regularExpression) {
                return (broker, agent, String(agent.log[r].dropFirst(4)))
            }
            usleep(100_000)
        }
        throw MosquittoBrokerError("the agent did not announce its dashboard URL:\n\(agent.log)")
    }

    @Test(.enabled(if: promtoolAvailable, "promtool is not installed (Debian prometheus)"))
    func metricsPassPromtoolAndCountSamples() throws {
        let (_, agent, url) = try Self.startAgent()
        defer { agent.signal(); agent.waitForExit(timeout: 10) }
        usleep(1_500_000)
        let (rc, text) = try Self.run("/usr/bin/curl", ["-s", "--max-time", "10", url + "metrics"])
        try #require(rc == 0)
        let (lint, problems) = try Self.run("/usr/bin/promtool", ["check", "metrics"], stdin: Data(text.utf8))
        #expect(lint == 0, "promtool: \(problems)")
        // 200 Hz for ≥ 1.5 s: hundreds of samples; the line exists with a positive value.
        let line = text.split(separator: "\n").first { $0.hasPrefix("edgemotion_samples_processed_total ") }
        let value = line.flatMap { Double($0.split(separator: " ")[1]) } ?? 0
        #expect(value > 100, "samples_processed_total: \(String(describing: line))")
        for family in ["edgemotion_ring_drops_total", "edgemotion_mqtt_connected 1", "edgemotion_activity{activity=\"walking\"}",
                       "edgemotion_messages_published_total{topic=", "process_cpu_seconds_total", "process_resident_memory_bytes",
                       "edgemotion_build_info{"] {
            #expect(text.contains(family), "/metrics lacks \(family)")
        }
    }

    @Test func badRequestsGetErrorsAndTheAgentKeepsServing() throws {
        let (_, agent, url) = try Self.startAgent()
        defer { agent.signal(); agent.waitForExit(timeout: 10) }
        #expect(try Self.status(url) == 200)
        #expect(try Self.status(url + "../../etc/passwd", ["--path-as-is"]) == 400)
        #expect(try Self.status(url + "%2e%2e/etc/passwd", ["--path-as-is"]) == 400)
        #expect(try Self.status(url + "no-such-page") == 404)
        #expect(try Self.status(url + "metrics", ["-X", "POST", "-d", "x=1"]) == 405)
        let huge = String(repeating: "a", count: 64 * 1024)
        #expect(try Self.status(url + "metrics", ["-H", "X-Big: \(huge)"]) >= 400)
        // A slowloris: a connection that sends half a request and stalls is dropped by the
        // timeout while other clients are served meanwhile.
        let port = Int(url.split(separator: ":").last!.dropLast())!
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = UInt16(port).bigEndian
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        #expect(connected == 0)
        _ = "GET /metrics HTTP/1.1\r\nHost: x\r\n".withCString { send(fd, $0, strlen($0), 0) }
        #expect(try Self.status(url + "metrics") == 200)
        close(fd)
        #expect(agent.isRunning)
        #expect(try Self.status(url + "healthz") == 200)
    }

    @Test func theLiveStreamSendsEventsWithAttitude() throws {
        let (_, agent, url) = try Self.startAgent()
        defer { agent.signal(); agent.waitForExit(timeout: 10) }
        usleep(1_000_000)
        let (_, text) = try Self.run("/usr/bin/curl", ["-s", "-N", "--max-time", "2", url + "events"])
        let events = text.components(separatedBy: "event: live\n").count - 1
        // 10 Hz for ~2 s (plus the newest one on connect).
        #expect(events >= 10, "\(events) live events in 2 s:\n\(text.prefix(500))")
        #expect(text.contains("\"roll\":"))
        #expect(text.contains("\"quaternion\":["))
    }
}
