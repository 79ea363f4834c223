import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Twenty live pages and one that never reads, on the real agent: the pipeline keeps its rate,
/// every reading page keeps up, and the agent's memory stays bounded (the stuck page's queue is
/// drop-oldest, 16 events).
@Suite("Dashboard under load", .serialized, .enabled(if: curlAvailable, "curl is not installed"), .ownThread)
struct DashboardLoadTests {
    /// VmRSS of `pid`, bytes.
    static func rss(_ pid: Int32) -> Int {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        let line = s.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return (line.flatMap { Int($0.split(separator: " ")[1]) } ?? 0) * 1024
    }

    /// A value of one sample line of `/metrics` text.
    static func metric(_ text: String, _ name: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
    }

    /// A raw TCP connection that requests `/events` with a 4 KiB receive buffer and never reads.
    static func stuckClient(port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var small: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = UInt16(port).bigEndian
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        _ = "GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".withCString { send(fd, $0, strlen($0), 0) }
        return fd
    }

    @Test func twentyPagesAndOneStuckClientLeaveTheRateAndMemoryBounded() throws {
        let seconds = 20
        // 30 live updates/s (the maximum) so the stuck client's socket fills within the run.
        let (broker, agent, url) = try Web.startAgent(id: "load", http: "live_rate: 30")
        defer { agent.signal(); agent.waitForExit(timeout: 10); broker.stop() }
        usleep(2_000_000)
        let stuck = Self.stuckClient(port: Web.port(of: url))
        defer { close(stuck) }
        let outputs = (0..<20).map { _ in NSTemporaryDirectory() + "em-sse-\(UUID().uuidString)" }
        defer { for o in outputs { try? FileManager.default.removeItem(atPath: o) } }
        let pages = try outputs.map { out in
            try SpawnedProcess("/usr/bin/curl", ["-s", "-N", "--max-time", "\(seconds)", "-o", out, url + "events"])
        }
        usleep(3_000_000)
        let rssStart = Self.rss(agent.pid)
        let start = try Web.get(url + "metrics")
        #expect(Self.metric(start, "edgemotion_dashboard_pages") ?? 0 >= 21, "21 pages connected")
        usleep(UInt32(seconds - 5) * 1_000_000)
        let end = try Web.get(url + "metrics")
        let rssEnd = Self.rss(agent.pid)
        for p in pages { p.stop() }

        // The source's 200 Hz holds with 21 pages open.
        #expect(Self.metric(end, "edgemotion_sample_rate_hertz") ?? 0 > 180, "achieved rate with 21 pages: \(Self.metric(end, "edgemotion_sample_rate_hertz") ?? -1)")
        #expect(Self.metric(end, "edgemotion_ring_drops_total") == 0)
        // Every reading page kept up with the stream: ≥ 20 of its 30 events/s (the margin is for a
        // loaded CI machine's timer, not for the pages).
        for o in outputs {
            let events = ((try? String(contentsOfFile: o, encoding: .utf8)) ?? "").components(separatedBy: "event: live\n").count - 1
            #expect(events >= 20 * (seconds - 5), "a page got \(events) live events in \(seconds) s at 30/s")
        }
        // Memory: 21 streams for 15 s add less than 8 MiB (each page's queue holds ≤ 16 events of ~1.5 kB).
        #expect(rssEnd - rssStart < 8 << 20, "RSS \(rssStart >> 10) KiB → \(rssEnd >> 10) KiB")
        let dropped = Self.metric(end, "edgemotion_dashboard_events_dropped_total") ?? 0
        print("dashboard load: 20 pages + 1 stuck at 30 Hz for \(seconds) s: RSS \(rssStart >> 10) → \(rssEnd >> 10) KiB, "
              + "stuck page's dropped events \(Int(dropped)), rate \(Self.metric(end, "edgemotion_sample_rate_hertz") ?? -1) Hz")
        #expect(agent.isRunning)
    }
}
