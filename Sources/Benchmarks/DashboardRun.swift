#if canImport(Glibc)
import Glibc
#endif
import Agent
import CMallocCounter
import Dashboard
import EdgeMotion
import MotionCore
import Platform

/// `edgemotion-bench dashboard`: the agent's per-sample path with its dashboard on, with 0 and with
/// 20 live pages reading `/events` plus one page that never reads.
///
/// The real `MotionService` (two-thread pipeline) over an `ArraySource` as fast as it goes, every
/// stream at the source rate encoded to JSON as the publisher does (`EncodingOutput`), and the
/// real `AgentDashboard` on loopback: its pull-only `MotionManager` on the service and its live
/// timer fanning each event out to every page. A probe output on the processing thread reads
/// that thread's CPU time and heap allocations (malloc interposer) between its first and last
/// burst, so the numbers are the per-sample path's own, whatever the pages cost elsewhere.
/// `calibrating`: the calibration page's accel and mag steps' consumers (`CalibrationCapture`)
/// collect at once besides the pages (the page runs one at a time: this row overstates it).
enum DashboardRun {
    struct Result {
        var clients: Int
        var calibrating = false
        var threadNanosPerSample: Double
        var allocationsPerSample: Double
        var processNanosPerSample: Double
        var eventsSent: Int
        var eventsDropped: Int
    }

    /// Forwards to an `EncodingOutput` and samples the processing thread's counters per burst.
    final class Probe: PipelineOutput, @unchecked Sendable {
        let encoder = EncodingOutput()
        private(set) var motionStates = 0
        private(set) var first: (cpu: UInt64, allocations: UInt64, states: Int)?
        private(set) var last: (cpu: UInt64, allocations: UInt64, states: Int)?

        func pipeline(didProduce samples: Span<IMUSample>, of stream: SensorStream, interval: Double) {
            encoder.pipeline(didProduce: samples, of: stream, interval: interval)
        }

        func pipeline(didProduce motion: Span<DeviceMotion>, interval: Double) {
            encoder.pipeline(didProduce: motion, interval: interval)
            motionStates &+= motion.count
        }

        func pipelineDidProcessBurst() {
            let now = (threadCPUNanos(), UInt64(mc_thread_allocations()), motionStates)
            if first == nil { first = now } else { last = now }
        }
    }

    /// Reads an SSE stream to its end on its own thread, counting `event: live` messages.
    final class Page: @unchecked Sendable {
        // @unchecked Sendable: `bytes` is written only by the reading thread and read after
        // `close()` has joined it; `fd` and `thread` are set in `init` before the thread starts.
        let fd: Int32
        private(set) var bytes = 0
        private var thread: PlatformThread?

        init(port: UInt16, reads: Bool) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = port.bigEndian
            a.sin_addr.s_addr = inet_addr("127.0.0.1")
            let ok = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard ok == 0 else { throw BenchError("cannot connect to the dashboard on port \(port)") }
            _ = "GET /events HTTP/1.1\r\nHost: bench\r\n\r\n".withCString { send(fd, $0, strlen($0), 0) }
            guard reads else { return }
            thread = try PlatformThread.start(name: "bench-page") { [self] in
                var buffer = [UInt8](repeating: 0, count: 16384)
                while true {
                    let n = buffer.withUnsafeMutableBytes { recv(self.fd, $0.baseAddress, $0.count, 0) }
                    if n <= 0 { break }
                    self.bytes += n
                }
            }
        }

        func close() {
            shutdown(fd, Int32(SHUT_RDWR))
            thread?.join()
            Glibc.close(fd)
        }
    }

    static func once(clients: Int, calibrating: Bool = false, trial: TrialData, samples total: Int, rate: Double) throws -> Result {
        let c = WholePathCase.everySample(rate: rate, publishRate: 10)
        var agent = AgentConfiguration()
        agent.http.enabled = true
        agent.http.listen = "127.0.0.1:0"
        let dashboard = try AgentDashboard(configuration: agent)
        let source = ArraySource(samples: trial.retimed(rate: rate, count: min(total, 65_536)), rate: rate, total: total, sensors: c.sensors)
        let probe = Probe()
        let service = MotionService(source: source, configuration: c.configuration, outputs: [probe])
        _ = try service.start(holdingDelivery: true)
        dashboard.attach(service: service, activity: false, configuration: agent)
        let captures = calibrating ? [CalibrationCapture(kind: .accel, sourceRate: rate), CalibrationCapture(kind: .mag, sourceRate: rate)] : []
        for capture in captures { _ = try service.addConsumer(capture, schedule: capture.schedule) }
        var pages: [Page] = []
        if clients > 0 {
            pages = try (0..<clients).map { _ in try Page(port: dashboard.server.port, reads: true) }
            pages.append(try Page(port: dashboard.server.port, reads: false))
            usleep(300_000)   // every page connected and served its first event
        }
        let cpu0 = PipelineRun.processCPUNanos()
        service.beginDelivery()
        while service.pipeline?.waitUntilEnded(timeout: .seconds(60)) == false {}
        let cpu1 = PipelineRun.processCPUNanos()
        let hub = dashboard.hub.statistics
        for p in pages { p.close() }
        dashboard.stop()
        service.stop()
        guard let a = probe.first, let b = probe.last, b.states > a.states else { throw BenchError("the probe saw fewer than two bursts") }
        guard captures.allSatisfy({ $0.progress.samples > 0 }) else { throw BenchError("the calibration consumers saw no samples") }
        let n = Double(b.states - a.states)
        blackHole(probe.encoder.bytes)
        return Result(clients: clients, calibrating: calibrating, threadNanosPerSample: Double(b.cpu - a.cpu) / n,
                      allocationsPerSample: Double(b.allocations - a.allocations) / n,
                      processNanosPerSample: Double(cpu1 - cpu0) / Double(total),
                      eventsSent: hub.broadcast, eventsDropped: hub.dropped)
    }

    /// Alternating runs with 0 and 20 pages (`repeats` each), and with `calibration` 20 pages
    /// plus the calibration steps' consumers; min and median per row.
    static func table(trial: TrialData, samples: Int, repeats: Int, rate: Double, clientCounts: [Int], calibration: Bool = false) throws -> String {
        let kinds = clientCounts.map { ($0, false) } + (calibration ? [(clientCounts.last ?? 20, true)] : [])
        var rows: [Int: [Result]] = [:]
        for _ in 0..<repeats {
            for (i, (k, cal)) in kinds.enumerated() {
                rows[i, default: []].append(try once(clients: k, calibrating: cal, trial: trial, samples: samples, rate: rate))
            }
        }
        func median(_ v: [Double]) -> Double { let s = v.sorted(); return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2 }
        var out = "edgemotion-bench dashboard — \(samples) samples at \(Int(rate)) Hz, 4 streams at the source rate, JSON-encoded; "
        out += "\(repeats) runs each; load average \(StageReport.loadAverage())\n"
        let first = calibration ? 24 : 7
        out += "pages".padding(first) + "processing-thread ns/sample (min / median)  allocs/sample  process ns/sample (median)  live events sent / dropped\n"
        for (i, (k, cal)) in kinds.enumerated() {
            let r = rows[i] ?? []
            let t = r.map(\.threadNanosPerSample)
            out += "\(k == 0 ? "0" : "\(k)+1")\(cal ? " +accel+mag steps" : "")".padding(first)
            out += "\(Int(t.min() ?? .nan)) / \(Int(median(t)))".padding(46)
            out += "\(String(format3: r.map(\.allocationsPerSample).max() ?? .nan))".padding(15)
            out += "\(Int(median(r.map(\.processNanosPerSample))))".padding(28)
            out += "\(r.map(\.eventsSent).reduce(0, +)) / \(r.map(\.eventsDropped).reduce(0, +))\n"
        }
        return out
    }
}

private extension String {
    func padding(_ n: Int) -> String { count >= n ? self + " " : self + String(repeating: " ", count: n - count) }
}
