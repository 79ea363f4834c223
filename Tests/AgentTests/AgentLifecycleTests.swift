import Foundation
import Testing
import Messaging
import MotionCore
import Sensors
import TestSupport
@testable import Agent

/// The simulator, except that its start always fails (a device that is gone at start-up).
final class SourceThatNeverStarts: IMUSource, Sendable {
    let inner = SimulatedIMU(options: SimulatorOptions(scenario: SimulationScenario(named: "stationary")!, seed: 1))
    var capabilities: SourceCapabilities { inner.capabilities }
    func start(requestedRate: Double) throws -> SourceConfiguration {
        throw SensorError(.notFound, subject: "test device", detail: "gone at start-up")
    }
    func read(into buffer: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws -> ReadResult {
        throw SensorError(.io, subject: "test device", detail: "never started")
    }
    func stop() {}
}

/// The agent's parts in process (no child process, a real broker): the order they start in, the
/// reverse order they stop in, the rollback of a failed start, a reload decided by
/// `ConfigurationDiff` and a failover, seen from the parts' events and from the broker.
@Suite("Agent lifecycle in process", .serialized, .ownThread)
struct AgentLifecycleTests {
    /// The parts of a running agent in the order docs/ARCHITECTURE.md gives.
    static let pipelineOrder = ["motion service", "activity", "motion events", "latest snapshots", "movement advisor", "delivery"]
    static let startOrder = ["broker connection", "health reporter", "outbox", "dashboard"] + pipelineOrder + ["pipeline", "command handler"]

    /// The end-to-end tests' agent (`Reliability.config`: simulator at 200 Hz, accelerometer and
    /// motion streams) on `broker`.
    static func config(broker: String, id: String, stateDirectory: String) -> String {
        Reliability.config(id: id, stateDirectory: stateDirectory, extra: "mqtt: { broker: \"\(broker)\" }")
    }

    /// Runs `runner` on a thread of its own for `duration` seconds, recording its part events.
    final class Run: @unchecked Sendable {
        // @unchecked: `events` and `status` are LockedBoxes; `finished` is a semaphore.
        let events = LockedBox<[String]>([])
        let status = LockedBox<Int32>(-1)
        let finished = DispatchSemaphore(value: 0)
        init(_ runner: AgentRunner, duration: Double) {
            let events = events
            runner.partObserver = { e in events.value.append(e.description) }
            Thread.detachNewThread { [self] in
                status.value = runner.run(duration: duration)
                finished.signal()
            }
        }
        func waitForExit(_ seconds: Double = 20) -> Int32? {
            finished.wait(timeout: .now() + seconds) == .success ? status.value : nil
        }
        /// Waits (bounded) until the events include `event`.
        func waitFor(_ event: String, after count: Int = 0, timeout: Double = 10) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if events.value.dropFirst(count).contains(event) { return true }
                usleep(20_000)
            }
            return false
        }
    }

    func json(_ m: MQTTMessage) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(m.payload)) as? [String: Any]) ?? [:]
    }

    @Test func partsStartInOrderAndStopInReverseAndTheLastCountersPrecedeOffline() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/order/#"])
        let dir = try Reliability.tempDirectory("order")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let runner = try AgentRunner(configuration: try ConfigurationLoader.parse(
            yaml: Self.config(broker: broker.url, id: "order", stateDirectory: dir), fileName: "order.yaml"))
        let run = Run(runner, duration: 2)
        #expect(run.waitForExit() == 0)

        let events = run.events.value
        // A group is started once its parts are, and stopped once they are.
        let stopOrder = ["command handler"] + Self.pipelineOrder.reversed() + ["pipeline", "dashboard", "outbox", "health reporter", "broker connection"]
        #expect(events == Self.startOrder.map { "started " + $0 } + stopOrder.map { "stopped " + $0 })
        // On the wire: the final stats (QoS 1, sent by `health reporter`) arrive before the retained
        // offline (sent by `broker connection`, stopped after it), and samples were published.
        _ = sub.waitFor(count: 1, timeout: .seconds(2)) { $0.topic == "edgemotion/order/status" && $0.payloadString == "offline" }
        let topics = sub.messages.map(\.topic)
        let lastStats = try #require(topics.lastIndex(of: "edgemotion/order/stats"))
        let offline = try #require(sub.messages.lastIndex { $0.topic == "edgemotion/order/status" && $0.payloadString == "offline" })
        #expect(lastStats < offline)
        #expect(!sub.messages(on: "edgemotion/order/sensor/accelerometer").isEmpty)
        #expect((sub.messages(on: "edgemotion/order/stats").last.map(json)?["samples_processed"] as? Int ?? 0) > 0)
    }

    @Test func aSourceThatCannotStartStopsWhatStartedInReverseAndSaysOffline() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/nostart/#"])
        let dir = try Reliability.tempDirectory("nostart")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let runner = try AgentRunner(configuration: try ConfigurationLoader.parse(
            yaml: Self.config(broker: broker.url, id: "nostart", stateDirectory: dir), fileName: "nostart.yaml"))
        runner.makeSource = { _ in SourceThatNeverStarts() }
        let run = Run(runner, duration: 5)
        #expect(run.waitForExit() == 1, "a source that does not start ends the agent with status 1")

        #expect(run.events.value == ["started broker connection", "started health reporter", "started outbox", "started dashboard",
                                     "failed motion service", "failed pipeline",
                                     "stopped dashboard", "stopped outbox", "stopped health reporter", "stopped broker connection"])
        let status = sub.waitFor(count: 2, topic: "edgemotion/nostart/status", timeout: .seconds(3)).map(\.payloadString)
        #expect(status == ["online", "offline"])
        #expect(sub.messages(on: "edgemotion/nostart/stats").isEmpty, "nothing was sampled: no final counters")
    }

    @Test func aReloadRestartsOnlyThePipelineRetunesRatesInPlaceAndMovesToAnotherBroker() throws {
        let first = try MosquittoBroker.start()
        let second = try MosquittoBroker.start()
        let sub1 = try TestSubscriber(url: first.url, patterns: ["edgemotion/reloader/#"])
        let sub2 = try TestSubscriber(url: second.url, patterns: ["edgemotion/reloader/#"])
        let dir = try Reliability.tempDirectory("reloader")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/agent.yaml"
        func write(broker: String, accelerometer: String) throws {
            try Self.config(broker: broker, id: "reloader", stateDirectory: dir)
                .replacing("accelerometer: { rate: 100, publish_rate: 10, qos: 1 }", with: "accelerometer: " + accelerometer)
                .write(toFile: path, atomically: true, encoding: .utf8)
        }
        try write(broker: first.url, accelerometer: "{ rate: 100, publish_rate: 10, qos: 1 }")
        let runner = try AgentRunner(configuration: try ConfigurationLoader.load(path: path), configPath: path)
        let run = Run(runner, duration: 30)
        let accelerometer = "edgemotion/reloader/sensor/accelerometer"
        #expect(run.waitFor("started pipeline"))
        #expect(!sub1.waitFor(count: 3, topic: accelerometer, timeout: .seconds(5)).isEmpty)

        // 1. A new QoS is a new route: the pipeline's parts stop in reverse and start again, in
        //    order; the broker connection, the outbox and the dashboard stay.
        var mark = run.events.value.count
        try write(broker: first.url, accelerometer: "{ rate: 100, publish_rate: 10, qos: 0 }")
        runner.requestReload()
        #expect(run.waitFor("started delivery", after: mark))
        #expect(Array(run.events.value.dropFirst(mark)) == Self.pipelineOrder.reversed().map { "stopped " + $0 }
                                                             + Self.pipelineOrder.map { "started " + $0 })
        #expect(!sub1.waitFor(count: 1, timeout: .seconds(5)) { $0.topic == accelerometer && $0.qos == 0 }.isEmpty,
                "the restarted pipeline publishes on the new route")

        // 2. A new rate only: new schedules for the running pipeline, no part stops; 50 Hz on the wire.
        mark = run.events.value.count
        try write(broker: first.url, accelerometer: "{ rate: 50, publish_rate: 10, qos: 0 }")
        runner.requestReload()
        let deadline = Date().addingTimeInterval(10)
        var interval: Double?
        while Date() < deadline, interval != 0.02 {
            interval = sub1.messages(on: accelerometer).last.map(json)?["interval_s"] as? Double
            usleep(50_000)
        }
        #expect(interval == 0.02, "50 Hz after the reload")
        #expect(run.events.value.count == mark, "no part stopped or started: \(run.events.value.dropFirst(mark))")

        // 3. Another broker: the old one is told offline, the streams go on at the new one, the
        //    pipeline keeps running.
        mark = run.events.value.count
        try write(broker: second.url, accelerometer: "{ rate: 50, publish_rate: 10, qos: 0 }")
        runner.requestReload()
        #expect(sub2.waitFor(count: 3, topic: accelerometer, timeout: .seconds(10)).count >= 3)
        #expect(sub1.messages(on: "edgemotion/reloader/status").last?.payloadString == "offline")
        #expect(sub2.messages(on: "edgemotion/reloader/status").last?.payloadString == "online")
        #expect(run.events.value.count == mark, "the pipeline was not restarted for a broker move")
        runner.requestStop()
        #expect(run.waitForExit() == 0)
    }

    @Test func anUnreachableBrokerFailsOverToTheNextOne() throws {
        let fallback = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: fallback.url, patterns: ["edgemotion/failover/#"])
        let dead = try MosquittoBroker.freeLoopbackPort()
        let dir = try Reliability.tempDirectory("failover")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let yaml = Self.config(broker: "mqtt://127.0.0.1:\(dead)", id: "failover", stateDirectory: dir)
            .replacing("mqtt: { broker: \"mqtt://127.0.0.1:\(dead)\" }",
                       with: "mqtt: { broker: \"mqtt://127.0.0.1:\(dead)\", fallback_brokers: [\"\(fallback.url)\"], failover_after_s: 1 }")
        let runner = try AgentRunner(configuration: try ConfigurationLoader.parse(yaml: yaml, fileName: "failover.yaml"))
        let run = Run(runner, duration: 12)
        // The initial wait gives up after 5 s, then 1 s without a connection moves to the fallback.
        #expect(sub.waitFor(count: 3, topic: "edgemotion/failover/sensor/accelerometer", timeout: .seconds(15)).count >= 3)
        let health = sub.waitFor(count: 1, timeout: .seconds(5)) { $0.topic == "edgemotion/failover/health" && self.json($0)["mqtt"] as? String == "connected" }
        #expect((health.last.map(json)?["mqtt_failovers"] as? Int) == 1)
        #expect((health.last.map(json)?["broker"] as? String)?.contains("\(fallback.port)") == true)
        #expect(run.waitForExit(20) == 0)
    }
}
