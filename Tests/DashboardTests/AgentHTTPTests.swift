import Foundation
import Testing
import TestSupport

private let promtoolAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool")


/// The real agent with `http.enabled` on a free loopback port, read with curl, checked with
/// Prometheus' own `promtool`.
@Suite("Agent HTTP", .serialized, .enabled(if: curlAvailable, "curl is not installed"), .ownThread)
struct AgentHTTPTests {
    @Test(.enabled(if: promtoolAvailable, "promtool is not installed (Debian prometheus)"))
    func metricsPassPromtoolAndCountSamples() throws {
        let (broker, agent, url) = try Web.startAgent()
        defer { agent.signal(); agent.waitForExit(timeout: 10); broker.stop() }
        usleep(1_500_000)
        let (rc, text) = try Web.run("/usr/bin/curl", ["-s", "--max-time", "10", url + "metrics"])
        try #require(rc == 0)
        let (lint, problems) = try Web.run("/usr/bin/promtool", ["check", "metrics"], stdin: Data(text.utf8))
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
        let (broker, agent, url) = try Web.startAgent()
        defer { agent.signal(); agent.waitForExit(timeout: 10); broker.stop() }
        #expect(try Web.status(url) == 200)
        #expect(try Web.status(url + "../../etc/passwd", ["--path-as-is"]) == 400)
        #expect(try Web.status(url + "%2e%2e/etc/passwd", ["--path-as-is"]) == 400)
        #expect(try Web.status(url + "no-such-page") == 404)
        #expect(try Web.status(url + "metrics", ["-X", "POST", "-d", "x=1"]) == 405)
        let huge = String(repeating: "a", count: 64 * 1024)
        #expect(try Web.status(url + "metrics", ["-H", "X-Big: \(huge)"]) >= 400)
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
        #expect(try Web.status(url + "metrics") == 200)
        close(fd)
        #expect(agent.isRunning)
        #expect(try Web.status(url + "healthz") == 200)
    }

    @Test func theLiveStreamSendsEventsWithAttitude() throws {
        let (broker, agent, url) = try Web.startAgent()
        defer { agent.signal(); agent.waitForExit(timeout: 10); broker.stop() }
        usleep(1_000_000)
        let (_, text) = try Web.run("/usr/bin/curl", ["-s", "-N", "--max-time", "2", url + "events"])
        let events = text.components(separatedBy: "event: live\n").count - 1
        // 10 Hz for ~2 s (plus the newest one on connect).
        #expect(events >= 10, "\(events) live events in 2 s:\n\(text.prefix(500))")
        #expect(text.contains("\"roll\":"))
        #expect(text.contains("\"quaternion\":["))
    }
}
