import Foundation
import Testing
@testable import Agent
import EdgeMotion
import TestSupport

/// Issue 14 item 1: a tiny `publish_rate` (or `rate`) must never size a buffer. Every derived size
/// (samples per message = rate / publish_rate, decimation = source rate / rate) is bounded where
/// configuration and `cmd/stream` commands are validated, and clamped again in the pipeline.
@Suite("Hostile input: stream rates and batch sizes", .ownThread)
struct HostileRateTests {
    /// The command that made the agent allocate 38 GB: 200 Hz in batches of 2·10⁸ samples.
    static let hugeBatchCommand = #"{"stream":"motion","rate":200,"publish_rate":0.000001}"#

    @Test func aCommandWithATinyPublishRateIsRefusedNamingTheKeyAndTheRange() {
        guard case .failure(let f) = StreamCommand.parse(Array(Self.hugeBatchCommand.utf8)) else {
            Issue.record("accepted \(Self.hugeBatchCommand)")
            return
        }
        #expect(f.message.contains("'publish_rate'"), "\(f.message)")
        #expect(f.message.contains("0.01 ≤ publish_rate ≤ 10000"), "\(f.message)")
        #expect(f.message.contains("10000 samples per message"), "\(f.message)")
    }

    @Test func aCommandWhoseBatchWouldExceedTheLimitIsRefusedAgainstTheSourceRate() throws {
        // 200 Hz at 0.01 messages/s = 20 000 samples a message: each value alone is allowed.
        let command = try StreamCommand.parse(Array(#"{"stream":"motion","rate":200,"publish_rate":0.01}"#.utf8)).get()
        let current = StreamSettings(enabled: true, rate: 50, publishRate: 10)
        guard case .failure(let f) = command.applied(to: current, sourceRate: 200) else {
            Issue.record("20 000 samples per message accepted")
            return
        }
        #expect(f.message.contains("publish_rate") && f.message.contains("at most 10000"), "\(f.message)")
        // 200 Hz at 0.02 messages/s = exactly 10 000 samples: the limit itself is allowed.
        let edge = try StreamCommand.parse(Array(#"{"stream":"motion","rate":200,"publish_rate":0.02}"#.utf8)).get()
        #expect((try? edge.applied(to: current, sourceRate: 200).get())?.publishRate == 0.02)
    }

    @Test func aTinyNonZeroRateIsRefusedInCommandsAndConfigs() {
        guard case .failure(let f) = StreamCommand.parse(Array(#"{"stream":"motion","rate":1e-300}"#.utf8)) else {
            Issue.record("rate 1e-300 accepted")
            return
        }
        #expect(f.message.contains("'rate'") && f.message.contains("0.01 ≤ rate ≤ 10000"), "\(f.message)")
        let problems = ConfigTestSupport.problems("streams:\n  motion: { rate: 1e-300 }\n")
        #expect(problems.contains { $0.contains("streams.motion.rate") && $0.contains("0.01 ≤ rate ≤ 10000") }, "\(problems)")
    }

    @Test func theSameValueInAConfigurationIsRefusedNamingTheKeyAndTheRange() {
        let problems = ConfigTestSupport.problems("streams:\n  motion: { rate: 200, publish_rate: 0.000001 }\n")
        #expect(problems.contains { $0.hasPrefix("t.yaml:2:") && $0.contains("streams.motion.publish_rate") && $0.contains("0.01 ≤ publish_rate ≤ 10000") },
                "\(problems)")
    }

    @Test func aConfigurationWhoseBatchWouldExceedTheLimitIsRefused() {
        // rate 0 follows the source: 1000 Hz at 0.05 messages/s = 20 000 samples a message.
        let problems = ConfigTestSupport.problems("source: { rate: 1000 }\nstreams:\n  accelerometer: { rate: 0, publish_rate: 0.05 }\n")
        #expect(problems.contains { $0.contains("streams.accelerometer.publish_rate") && $0.contains("at most 10000") && $0.contains("publish_rate ≥ 0.1 Hz") },
                "\(problems)")
        // 1000 Hz at 0.1 messages/s = 10 000 samples: allowed.
        #expect(ConfigTestSupport.problems("source: { rate: 1000 }\nstreams:\n  accelerometer: { rate: 0, publish_rate: 0.1 }\n") == [])
    }

    @Test func thePipelineClampsBatchAndDecimationWhateverTheScheduleSays() {
        // Library users are not validated by the agent: the pipeline itself never sizes a buffer
        // (or converts to Int) from an unbounded quotient.
        let tiny = EffectiveSchedule(StreamSchedule(rate: 200, publishRate: 1e-6), sourceRate: 200)
        #expect(tiny.batchSize == EffectiveSchedule.maximumBatchSize && tiny.batchSize <= 10_000)
        let zero = EffectiveSchedule(StreamSchedule(rate: 200, publishRate: 0), sourceRate: 200)
        #expect(zero.batchSize == EffectiveSchedule.maximumBatchSize)
        let nan = EffectiveSchedule(StreamSchedule(rate: 200, publishRate: .nan), sourceRate: 200)
        #expect(nan.batchSize == 1)
        let slow = EffectiveSchedule(StreamSchedule(rate: 1e-300, publishRate: 1), sourceRate: 200)
        #expect(slow.decimation == EffectiveSchedule.maximumDecimation && slow.batchSize == 1)
        // An ordinary schedule is untouched: 100 Hz of 200, 10 messages/s → every 2nd sample, 10 a batch.
        let normal = EffectiveSchedule(StreamSchedule(rate: 100, publishRate: 10), sourceRate: 200)
        #expect(normal.decimation == 2 && normal.batchSize == 10)
    }
}

/// The same hostile value through the real binary: `check-config`, `run`, SIGHUP and `cmd/stream`.
@Suite("Hostile input: stream rates end to end", .serialized, .ownThread)
struct HostileRateEndToEndTests {
    static let badStreams = "streams:\n  motion: { rate: 200, publish_rate: 0.000001 }\n"

    @Test func checkConfigAndRunRefuseATinyPublishRate() throws {
        let dir = try Reliability.tempDirectory("tiny-rate")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/bad.yaml"
        try ("device: { id: tiny }\nstate_directory: \(dir)\n" + Self.badStreams).write(toFile: path, atomically: true, encoding: .utf8)
        let check = try AgentProcess(["check-config", path])
        #expect(check.waitForExit(timeout: 20) == 1)
        #expect(check.log.contains("streams.motion.publish_rate") && check.log.contains("0.01 ≤ publish_rate ≤ 10000"), "\(check.log)")
        let run = try AgentProcess(["run", "--config", path])
        let status = run.waitForExit(timeout: 20)
        #expect(status != nil && status != 0, "run must refuse the configuration, not start")
        #expect(run.log.contains("streams.motion.publish_rate"), "\(run.log)")
    }

    @Test func aReloadAndACommandWithATinyPublishRateAreRefusedAndTheAgentKeepsRunning() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/#"])
        let dir = try Reliability.tempDirectory("tiny-rate-reload")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try AgentProcess.writeConfig(Reliability.config(id: "tiny", stateDirectory: dir, extra: "control: { enabled: true }"))
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        #expect(sub.waitFor(count: 3, topic: "edgemotion/tiny/motion", timeout: .seconds(15)).count >= 3, "log:\n\(agent.log)")

        // The command: refused with the key named, nothing applied, the process alive.
        let pub = try TestSubscriber(url: broker.url, patterns: ["unused/x"])
        try pub.client.publish(topic: "edgemotion/tiny/cmd/stream", string: HostileRateTests.hugeBatchCommand, qos: 1)
        let reply = sub.waitFor(count: 1, topic: "edgemotion/tiny/cmd/stream/result", timeout: .seconds(8)).first?.payloadString ?? ""
        #expect(reply.contains("\"ok\":false") && reply.contains("publish_rate"), "reply: \(reply)\nlog:\n\(agent.log)")

        // The same value in the configuration, then SIGHUP: rejected, the old one keeps running.
        try (Reliability.config(id: "tiny", stateDirectory: dir, extra: "control: { enabled: true }")
            .replacingOccurrences(of: "motion: { rate: 50, publish_rate: 10, qos: 0 }", with: "motion: { rate: 200, publish_rate: 0.000001 }"))
            .write(toFile: config, atomically: true, encoding: .utf8)
        agent.signal(SIGHUP)
        usleep(1_500_000)
        #expect(agent.isRunning)
        #expect(agent.log.contains("reload rejected") && agent.log.contains("streams.motion.publish_rate"), "log:\n\(agent.log)")
        let before = sub.messages(on: "edgemotion/tiny/motion").count
        usleep(1_500_000)
        #expect(sub.messages(on: "edgemotion/tiny/motion").count >= before + 5, "still publishing at the old rate")
        #expect(Reliability.rssKB(agent.pid) < 500_000, "no huge batch buffer")
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0)
    }
}
