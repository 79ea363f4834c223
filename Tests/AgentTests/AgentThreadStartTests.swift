import Foundation
import Testing
import Glibc
import Logging
import Platform
import TestSupport
@testable import Agent

/// The outbox's pump (`em-outbox`) and the MQTT network thread (`em-mqtt`) start through the
/// runner's `threadStarter`, like the pipeline's threads (`PipelineThreadStartAgentTests`): a
/// failed `pthread_create` is one error line naming the thread, the errno and what to do, and
/// exit status 1 — never a crash or an agent running without the thread. In process, for the
/// reason given there (root ignores `prlimit --nproc`).
@Suite("Agent: an outbox or MQTT thread that cannot start", .serialized, .ownThread)
struct AgentThreadStartTests {
    typealias Run = AgentLifecycleTests.Run

    static func starter(failing: String, failures: LockedBox<Int> = LockedBox(Int.max)) -> ThreadStarter {
        PipelineThreadStartAgentTests.starter(failures: failures, failing: failing)
    }

    /// The line for `thread` among `lines` (other suites' lines may be captured too; only this
    /// suite fails these threads). glibc's strerror(EAGAIN) is "Resource temporarily
    /// unavailable"; EAGAIN is 11 on Linux.
    static func expectOneLine(_ lines: [String], thread: String, event: String) {
        let errors = lines.filter { $0.contains("thread=\(thread)") }
        #expect(errors.count == 1, "\(errors)")
        guard let line = errors.first else { return }
        #expect(line.contains(" error agent event=\"\(event)\""), "\(line)")
        #expect(line.contains("errno=\"Resource temporarily unavailable (errno 11)\""))
        #expect(line.contains("ulimit -u") && line.contains("TasksMax"))
    }

    @Test func anOutboxThreadThatCannotStartIsOneErrorLineAndExitStatusOne() throws {
        let dir = try Reliability.tempDirectory("nooutbox")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // No broker needed: the runner fails while it is built, before any connection.
        let configuration = try ConfigurationLoader.parse(
            yaml: AgentLifecycleTests.config(broker: "mqtt://127.0.0.1:1", id: "nooutbox", stateDirectory: dir), fileName: "nooutbox.yaml")
        let (failure, lines) = LogSink.capturing { () -> AgentRunner.SetupFailure? in
            do throws(AgentRunner.SetupFailure) {
                _ = try AgentRunner(configuration: configuration, threadStarter: Self.starter(failing: "em-outbox"))
                return nil
            } catch { return error }
        }
        #expect(failure?.exitStatus == 1)
        #expect(failure?.description.contains("em-outbox") == true)
        Self.expectOneLine(lines, thread: "em-outbox", event: "cannot start a thread; not starting (exit status 1)")
    }

    @Test func anMQTTThreadThatCannotStartAtStartUpIsOneErrorLineAndExitStatusOne() throws {
        let dir = try Reliability.tempDirectory("nomqtt")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let runner = try AgentRunner(configuration: try ConfigurationLoader.parse(
            yaml: AgentLifecycleTests.config(broker: "mqtt://127.0.0.1:1", id: "nomqtt", stateDirectory: dir), fileName: "nomqtt.yaml"),
            threadStarter: Self.starter(failing: "em-mqtt"))
        let (status, lines) = LogSink.capturing { () -> Int32? in
            let run = Run(runner, duration: 10)
            return run.waitForExit()
        }
        #expect(status == 1, "no network thread: exit status 1 at once, not a 10 s run")
        Self.expectOneLine(lines, thread: "em-mqtt", event: "cannot start a thread; not starting (exit status 1)")
    }

    /// `edgemotion events set-level` (and the other cmd/events actions) start a client of their
    /// own: no network thread is exit status 1 with the thread named, not "broker unreachable"
    /// (69) after trying every broker.
    @Test func theCommandLineClientWithoutANetworkThreadFailsWithStatusOne() throws {
        let configuration = try ConfigurationLoader.parse(yaml: "mqtt: { broker: \"mqtt://127.0.0.1:1\", fallback_brokers: [\"mqtt://127.0.0.1:2\"] }",
                                                          fileName: "cli.yaml")
        let calls = LockedBox(0)
        let failing: ThreadStarter = { name, _ throws(ThreadStartError) in
            calls.value += 1
            throw ThreadStartError(thread: name, errno: Errno(EAGAIN))
        }
        var request = AgentCommandRequest(configuration: configuration, name: "events", timeout: 1)
        request.threadStarter = failing
        let failure = try #require(throws: AgentCommandRequest.Failure.self) { _ = try request.send(fields: "\"action\":\"set_level\"") }
        guard case .thread(let t) = failure else { Issue.record("not a thread failure: \(failure)"); return }
        #expect(t.thread == "em-mqtt" && t.errno == Errno(EAGAIN))
        #expect(failure.exitStatus == 1)
        #expect(failure.description.contains("ulimit -u"))
        #expect(calls.value == 1, "the fallback broker is not tried: it would fail the same way")
    }

    /// A reload to a new broker replaces the client; if its network thread cannot be created
    /// nothing would be published again: one line, the agent stops with exit status 1.
    @Test func anMQTTThreadThatCannotStartForANewBrokerStopsTheAgentWithStatusOne() throws {
        let first = try MosquittoBroker.start(), second = try MosquittoBroker.start()
        let dir = try Reliability.tempDirectory("newbroker")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/agent.yaml"
        let yaml = AgentLifecycleTests.config(broker: first.url, id: "newbroker", stateDirectory: dir)
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        let failures = LockedBox(0)
        let runner = try AgentRunner(configuration: try ConfigurationLoader.load(path: path), configPath: path,
                                     threadStarter: Self.starter(failing: "em-mqtt", failures: failures))
        let (status, lines) = try LogSink.capturing { () -> Int32? in
            let run = Run(runner, duration: 30)
            #expect(run.waitFor("started delivery"))
            failures.value = .max
            try yaml.replacing(first.url, with: second.url).write(toFile: path, atomically: true, encoding: .utf8)
            runner.requestReload()
            return run.waitForExit(15)
        }
        #expect(status == 1, "no network thread for the new broker: exit status 1, without a stop request")
        Self.expectOneLine(lines, thread: "em-mqtt", event: "cannot start the network thread of the new MQTT client; stopping (exit status 1)")
    }
}
