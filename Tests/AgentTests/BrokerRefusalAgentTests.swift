import Foundation
import Testing
@testable import Agent
import Messaging
import TestSupport

/// The agent against a broker that refuses it (wrong password): the start-up names the refusal
/// instead of "not reachable", and each failed attempt is logged once.
@Suite(.serialized) struct BrokerRefusalAgentTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_passwd")))
    func aWrongPasswordIsNamedOnceAttemptAndStartUpDoesNotCallTheBrokerUnreachable() throws {
        let dir = try Reliability.tempDirectory("refused")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let passwd = dir + "/passwd"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_passwd")
        p.arguments = ["-c", "-b", passwd, "edge", "right-password"]
        try p.run()
        p.waitUntilExit()
        let broker = try MosquittoBroker.start(extraConfig: "allow_anonymous false\npassword_file \(passwd)")
        let config = try AgentProcess.writeConfig(Reliability.config(id: "refused", stateDirectory: dir + "/state",
            extra: "mqtt: { username: edge, password: wrong-password }"))
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        usleep(7_000_000)
        agent.signal()
        _ = agent.waitForExit(timeout: 10)
        let log = agent.log
        #expect(log.contains("bad user name or password"), "\(log)")
        #expect(!log.contains("anonymous access disabled"))
        #expect(!log.contains("broker not reachable yet"))
        #expect(log.contains("the broker refuses the connection"))
        // One line per failed attempt: attempt numbers never repeat among the failure lines.
        let failures = log.split(separator: "\n").filter { $0.contains("CONNACK 5") && !$0.contains("health") }
        let attempts = failures.compactMap { line -> Substring? in
            line.split(separator: " ").first { $0.hasPrefix("attempt=") }
        }
        #expect(failures.count >= 2, "\(log)")
        #expect(attempts.count == failures.count, "every failure line is the client's one line: \(failures)")
        #expect(Set(attempts).count == attempts.count, "an attempt was logged twice: \(failures)")
    }
}
