import Foundation
import Testing
import Messaging
import MotionCore
import Sensors
import TestSupport
@testable import Agent

/// The real simulator behind a switch: after `failAfter` samples a read fails (as an unbound IIO
/// device's does), then `refusedStarts` re-opens fail ("no such device") before the device is back.
final class UnpluggedSource: IMUSource, @unchecked Sendable {
    // @unchecked Sendable: the settings and `inner` are `let`s; `startCount`, read by the test's
    // thread, is under `lock`; `delivered`, `failed` and `refused` are touched only by `start`,
    // `read` and `stop` (one thread at a time, `IMUSource`'s contract).
    let inner: SimulatedIMU
    let failAfter: Int
    let refusedStarts: Int
    private var delivered = 0
    private var failed = false
    private var refused = 0
    private let lock = NSLock()
    private var startCount = 0

    init(failAfter: Int, refusedStarts: Int) {
        inner = SimulatedIMU(options: SimulatorOptions(scenario: SimulationScenario(named: "stationary")!, seed: 3))
        self.failAfter = failAfter
        self.refusedStarts = refusedStarts
    }

    var capabilities: SourceCapabilities {
        var c = inner.capabilities
        c.name = "unplugged-sim"
        return c
    }

    var starts: Int { lock.withLock { startCount } }

    func start(requestedRate: Double) throws -> SourceConfiguration {
        lock.withLock { startCount += 1 }
        if failed, refused < refusedStarts {
            refused += 1
            throw SensorError(.notFound, subject: "test device", detail: "unplugged (re-open \(refused) refused)")
        }
        return try inner.start(requestedRate: requestedRate)
    }

    func read(into buffer: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws -> ReadResult {
        if !failed, delivered >= failAfter {
            failed = true
            throw SensorError(.io, subject: "test device", detail: "device disappeared (unbound)")
        }
        let r = try inner.read(into: buffer, timeout: timeout)
        if case .samples(let n) = r { delivered += n }
        return r
    }

    func stop() { inner.stop() }
}

/// The agent keeps running through a source failure: it reports it (retained `health`,
/// `events/status`), re-opens the source with backoff, and sampling resumes with `seq` continuing.
@Suite("Agent source failure", .ownThread)
struct SourceFailureTests {
    func json(_ m: MQTTMessage) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(m.payload)) as? [String: Any]) ?? [:]
    }

    @Test func aSourceThatFailsIsReportedRetriedWithBackoffAndResumesWithoutARestart() throws {
        let broker = try MosquittoBroker.start()
        let prefix = "edgemotion/unplug"
        let sub = try TestSubscriber(url: broker.url, patterns: [prefix + "/#"])
        let path = try ConfigTestSupport.temporaryFile("""
        device: { id: unplug }
        mqtt: { broker: "\(broker.url)" }
        source: { type: simulator, rate: 100, retry_max_s: 0.5 }
        streams:
          accelerometer: { rate: 100, publish_rate: 10 }
          gyroscope: { enabled: false }
          magnetometer: { enabled: false }
          motion: { enabled: false }
        process: { stats_interval_s: 1 }
        state_directory: \(NSTemporaryDirectory())edgemotion-unplug-\(UUID().uuidString)
        """)
        defer { ConfigTestSupport.removeTemporaryFile(path) }
        let runner = try AgentRunner(configuration: try ConfigurationLoader.load(path: path))
        let source = UnpluggedSource(failAfter: 80, refusedStarts: 2)   // fails at 0.8 s; back after 3 waits of 0.5 s
        runner.makeSource = { _ in source }
        let finished = DispatchSemaphore(value: 0)
        let status = LockedBox<Int32>(-1)
        Thread.detachNewThread {
            status.value = runner.run(duration: 4)
            finished.signal()
        }
        #expect(finished.wait(timeout: .now() + 15) == .success, "the agent did not stop after its 4 s")
        #expect(status.value == 0)
        sub.waitFor(count: 1, topic: prefix + "/status", timeout: .seconds(1))

        // events/status: one failure naming the error, then one recovery after the refused re-opens.
        let events = sub.messages(on: prefix + "/events/status").map(json).filter { ($0["event"] as? String)?.hasPrefix("source") == true }
        #expect(events.map { $0["event"] as? String } == ["sourceFailed", "sourceRecovered"])
        #expect((events.first?["error"] as? String)?.contains("device disappeared") == true)
        #expect(events.last?["retries"] as? Int == 3)
        #expect(source.starts == 4)                        // the first start, two refused, one that works
        // Numbered like every spooled event topic: (run, seq) identifies each; the whole topic
        // (every status event of this agent run) counts from 0 under one run.
        let all = sub.messages(on: prefix + "/events/status").map(json)
        #expect(all.compactMap { $0["seq"] as? Int } == Array(0..<all.count), "events/status seqs: \(all)")
        #expect(Set(all.compactMap { $0["run"] as? String }).count == 1 && all.allSatisfy { ($0["run"] as? String)?.count == 16 },
                "one run on events/status: \(all)")

        // health (retained): degraded with the source error while failing, ok after, the error kept.
        let health = sub.messages(on: prefix + "/health").map(json)
        let degraded = health.first { $0["status"] as? String == "degraded" }
        #expect(degraded?["source"] as? String == "failing")
        #expect((degraded?["source_error"] as? String)?.contains("device disappeared") == true)
        let last = try #require(health.last)
        #expect(last["status"] as? String == "ok")
        #expect((last["last_error"] as? String)?.contains("device disappeared") == true)

        // The same stream continues: seq without gaps, and batches arrive after the recovery.
        let messages = sub.messages
        let acc = messages.filter { $0.topic == prefix + "/sensor/accelerometer" }.map(json)
        #expect(acc.compactMap { $0["seq"] as? Int } == Array(0..<acc.count))
        let recoveredAt = try #require(messages.firstIndex { $0.topic.hasSuffix("/events/status") && json($0)["event"] as? String == "sourceRecovered" })
        let after = messages[recoveredAt...].filter { $0.topic == prefix + "/sensor/accelerometer" }.count
        #expect(after >= 5, "only \(after) accelerometer batches after the recovery")

        // stats count the re-open attempts.
        let stats = sub.messages(on: prefix + "/stats").map(json)
        #expect(stats.last?["source_retries"] as? Int == 3)
        broker.stop()
    }
}

/// A value shared with the thread that runs the agent.
final class LockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
