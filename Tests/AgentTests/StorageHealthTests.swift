import Foundation
import Testing
@testable import Agent
import Messaging
import TestSupport

/// The agent with its state directory on a small real file system that fills up: `health` says
/// `degraded` with the reason while a store cannot write (before: `ok`), and `ok` again once
/// space returns, with the recorder recording again. State directory below a missing parent:
/// created (before: the spool silently ran in memory only).
@Suite(.serialized, .ownThread) struct StorageHealthTests {
    @Test(.enabled(if: SmallFileSystem.isAvailable, "needs root to mount a small tmpfs"))
    func aFullDiskDegradesHealthWithTheReasonUntilSpaceReturns() throws {
        let fs = try SmallFileSystem(kilobytes: 2048)
        defer { fs.unmount() }
        let broker = try MosquittoBroker.start()
        let sub = try SessionSubscriber(url: broker.url, pattern: "edgemotion/full/+")
        let config = try AgentProcess.writeConfig(Reliability.config(id: "full", stateDirectory: fs.path + "/state",
            extra: "mqtt: { topic_prefix: edgemotion/full }\nrecorder: { enabled: true }\ndebug: { synthetic_events_per_minute: 240 }"))
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        defer { agent.signal(); _ = agent.waitForExit(timeout: 10) }
        func health() -> [String: Any]? { sub.json(on: "edgemotion/full/health").last }
        #expect(sub.waitUntil(timeout: 20) { health()?["status"] as? String == "ok" }, "\(agent.log)")

        fs.fill()
        #expect(sub.waitUntil(timeout: 20) { health()?["status"] as? String == "degraded" }, "\(agent.log)")
        let degraded = try #require(health())
        #expect(degraded["storage"] as? String == "failing")
        let reason = degraded["storage_error"] as? String ?? ""
        #expect(reason.contains("No space left on device") || reason.contains("full"), "\(reason)")

        fs.makeRoom()
        #expect(sub.waitUntil(timeout: 20) { health()?["status"] as? String == "ok" }, "\(agent.log)")
        #expect(health()?["storage"] as? String == "ok")
        #expect(agent.log.contains("recording resumed") || !agent.log.contains("recording paused"), "\(agent.log)")
    }

    @Test func aStateDirectoryBelowAMissingParentIsCreatedAndTheSpoolIsOnDisk() throws {
        let root = try Reliability.tempDirectory("mkdirp")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let state = root + "/does/not/exist/yet"
        let broker = try MosquittoBroker.start()
        let config = try AgentProcess.writeConfig(Reliability.config(id: "mkdirp", stateDirectory: state))
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url, "--duration", "3"])
        #expect(agent.waitForExit(timeout: 20) == 0, "\(agent.log)")
        #expect(FileManager.default.fileExists(atPath: state + "/outbox.spool"), "\(agent.log)")
        #expect(!agent.log.contains("in memory only"))
        var st = stat()
        #expect(stat(root + "/does", &st) == 0 && st.st_mode & 0o777 == 0o750)
    }

    @Test func aStateDirectoryThatCannotBeCreatedFailsStartUpWithAClearError() throws {
        let root = try Reliability.tempDirectory("mkdirfail")
        defer { try? FileManager.default.removeItem(atPath: root) }
        FileManager.default.createFile(atPath: root + "/file", contents: Data([1]))
        let broker = try MosquittoBroker.start()
        let config = try AgentProcess.writeConfig(Reliability.config(id: "mkdirfail", stateDirectory: root + "/file/state"))
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url, "--duration", "3"])
        let status = agent.waitForExit(timeout: 20)
        #expect(status != nil && status != 0, "\(agent.log)")
        #expect(agent.log.contains("cannot open the event spool; not starting"), "\(agent.log)")
        #expect(agent.log.contains(root + "/file"), "names the component")
    }
}
