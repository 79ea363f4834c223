import Foundation
import Testing
import Glibc
import EdgeMotion
import Messaging
import Logging
import Platform
import TestSupport
@testable import Agent

/// What the agent does when `pthread_create` fails for a pipeline thread, in process: the runner's
/// `threadStarter` seam fails the way glibc does when the process is out of threads (`EAGAIN`,
/// pthread_create(3)). A child process cannot be made to fail this way as root: `prlimit
/// --nproc` is not enforced for a process with CAP_SYS_RESOURCE (checked: four `sleep`s started
/// under `prlimit --nproc=2:2` as root).
@Suite("Agent: a pipeline thread that cannot start", .serialized, .ownThread)
struct PipelineThreadStartAgentTests {
    typealias Run = AgentLifecycleTests.Run

    /// Starts real threads, except `failing` (`em-acquire` unless told) while `failures` is above
    /// zero (each failure counts one down; `Int.max`: always). A failure is what
    /// `PlatformThread.start` throws when `pthread_create` returns `EAGAIN`.
    static func starter(failures: LockedBox<Int>, failing: String = "em-acquire") -> ThreadStarter {
        { name, body throws(ThreadStartError) in
            if name == failing {
                let fail = failures.value > 0
                if fail {
                    if failures.value != .max { failures.value -= 1 }
                    throw ThreadStartError(thread: name, errno: Errno(EAGAIN))
                }
            }
            return try PlatformThread.start(name: name, body)
        }
    }

    func json(_ m: MQTTMessage) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(m.payload)) as? [String: Any]) ?? [:]
    }

    @Test func aThreadThatCannotStartAtStartUpIsOneErrorLineAndExitStatusOne() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/nothread/#"])
        let dir = try Reliability.tempDirectory("nothread")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let runner = try AgentRunner(configuration: try ConfigurationLoader.parse(
            yaml: AgentLifecycleTests.config(broker: broker.url, id: "nothread", stateDirectory: dir), fileName: "nothread.yaml"),
            threadStarter: Self.starter(failures: LockedBox(Int.max)))
        let (status, lines) = LogSink.capturing { () -> Int32? in
            let run = Run(runner, duration: 10)
            return run.waitForExit()
        }
        #expect(status == 1, "a pipeline thread that cannot start ends the agent with status 1")

        // One error line names the thread, the errno (glibc's strerror(EAGAIN) is "Resource
        // temporarily unavailable", EAGAIN is 11 on Linux) and what to do.
        // (Other suites' lines may be captured too: only this suite fails em-acquire.)
        let errors = lines.filter { $0.contains("thread=em-acquire") }
        #expect(errors.count == 1, "\(errors)")
        let line = try #require(errors.first)
        #expect(line.contains(" error agent event=\"cannot start a thread; not starting (exit status 1)\""))
        #expect(line.contains("thread=em-acquire"))
        #expect(line.contains("errno=\"Resource temporarily unavailable (errno 11)\""))
        #expect(line.contains("ulimit -u") && line.contains("TasksMax"))
        // What had started was stopped again: the broker heard online, then offline.
        let said = sub.waitFor(count: 2, topic: "edgemotion/nothread/status", timeout: .seconds(3)).map(\.payloadString)
        #expect(said == ["online", "offline"])
    }

    /// The reload policy (`AgentRunner.apply`): a new pipeline that does not start leaves the
    /// previous source, streams and fusion running; the reload is rejected (in `health`).
    @Test func aThreadThatCannotStartAtReloadKeepsThePreviousConfigurationRunning() throws {
        let a = try ReloadingAgent(id: "rethread")
        defer { try? FileManager.default.removeItem(atPath: a.dir) }
        let (sub, runner, run) = (a.sub, a.runner, a.run)
        let accelerometer = "edgemotion/rethread/sensor/accelerometer"

        // A new QoS restarts the pipeline; its acquisition thread fails once, the previous one starts.
        let mark = run.events.value.count
        try a.reloadWithANewQoS(failingThreadStarts: 1)
        #expect(run.waitFor("started delivery", after: mark))
        let order = AgentLifecycleTests.pipelineOrder
        #expect(Array(run.events.value.dropFirst(mark)) == order.reversed().map { "stopped " + $0 }
                                                             + ["failed motion service"] + order.map { "started " + $0 })
        let rejected = sub.waitFor(count: 1, timeout: .seconds(5)) { $0.topic == "edgemotion/rethread/health" && self.json($0)["reload_rejected"] != nil }
        #expect((rejected.last.map(json)?["reload_rejected"] as? String)?.contains("em-acquire") == true)
        // The previous route (QoS 1) publishes again; the agent keeps running until asked to stop.
        // (Counted after the reload: the batches sent before it prove nothing.)
        let afterReload = sub.messages.count
        let qos1Before = sub.messages.filter { $0.topic == accelerometer && $0.qos == 1 }.count
        #expect(sub.waitFor(count: qos1Before + 2, timeout: .seconds(5)) { $0.topic == accelerometer && $0.qos == 1 }.count >= qos1Before + 2)
        #expect(!sub.messages.dropFirst(afterReload).contains { $0.topic == accelerometer && $0.qos == 0 })
        runner.requestStop()
        #expect(run.waitForExit() == 0)
    }

    /// When neither the new pipeline nor the previous one starts, nothing samples: the agent stops
    /// (retained `offline`) with exit status 1 instead of running without a pipeline.
    @Test func whenThePreviousPipelineCannotStartEitherTheAgentStopsWithStatusOne() throws {
        let a = try ReloadingAgent(id: "nopipe")
        defer { try? FileManager.default.removeItem(atPath: a.dir) }
        try a.reloadWithANewQoS(failingThreadStarts: .max)
        #expect(a.run.waitForExit(15) == 1, "no pipeline runs: exit status 1, without a stop request")
        #expect(a.sub.waitFor(count: 1, timeout: .seconds(3)) { $0.topic == "edgemotion/nopipe/status" && $0.payloadString == "offline" }.count >= 1)
    }

    /// An agent with a config file on a private broker, its pipeline started (delivery running),
    /// whose thread starter fails `em-acquire` on demand.
    struct ReloadingAgent {
        let broker: MosquittoBroker
        let sub: TestSubscriber
        let dir: String
        let path: String
        let yaml: String
        let runner: AgentRunner
        let run: Run
        let failures = LockedBox(0)

        init(id: String) throws {
            broker = try MosquittoBroker.start()
            sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/\(id)/#"])
            dir = try Reliability.tempDirectory(id)
            path = dir + "/agent.yaml"
            yaml = AgentLifecycleTests.config(broker: broker.url, id: id, stateDirectory: dir)
            try yaml.write(toFile: path, atomically: true, encoding: .utf8)
            runner = try AgentRunner(configuration: try ConfigurationLoader.load(path: path), configPath: path,
                                     threadStarter: PipelineThreadStartAgentTests.starter(failures: failures))
            run = Run(runner, duration: 30)
            #expect(run.waitFor("started delivery"))
        }

        /// The accelerometer's QoS 1 → 0 (a new route restarts the pipeline), with the next
        /// `count` acquisition threads failing to start.
        func reloadWithANewQoS(failingThreadStarts count: Int) throws {
            failures.value = count
            try yaml.replacing("accelerometer: { rate: 100, publish_rate: 10, qos: 1 }", with: "accelerometer: { rate: 100, publish_rate: 10, qos: 0 }")
                .write(toFile: path, atomically: true, encoding: .utf8)
            runner.requestReload()
        }
    }
}
