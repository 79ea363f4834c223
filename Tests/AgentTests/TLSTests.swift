import Foundation
import Testing
import Messaging
import TestSupport

/// Security against a real mosquitto configured by the test: TLS listener (openssl PKI generated
/// at test time), password file (`mosquitto_passwd`), ACL.
@Suite("TLS, credentials and ACL", .serialized, .ownThread)
struct TLSTests {
    static let passwd = "/usr/bin/mosquitto_passwd"

    func passwordFile(_ dir: String, user: String, password: String) throws -> String {
        let path = dir + "/passwd"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: TLSTests.passwd)
        p.arguments = ["-b", "-c", path, user, password]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw MosquittoBrokerError("mosquitto_passwd failed") }
        return path
    }

    /// CPU seconds (user + system) used so far by `pid`.
    func cpuSeconds(_ pid: Int32) -> Double {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = s.lastIndex(of: ")") else { return 0 }
        let f = s[s.index(after: close)...].split(separator: " ")
        // Fields after the name: state(0) … utime(11) stime(12).
        guard f.count > 12, let u = Double(f[11]), let k = Double(f[12]) else { return 0 }
        return (u + k) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func authBroker(_ dir: String) throws -> MosquittoBroker {
        let pw = try passwordFile(dir, user: "edge", password: "s3cret")
        let acl = dir + "/acl"
        try """
        user edge
        topic readwrite edgemotion/auth/status
        topic readwrite edgemotion/auth/meta
        topic readwrite edgemotion/auth/stats
        topic readwrite edgemotion/auth/health
        topic readwrite edgemotion/auth/sensor/#
        topic readwrite edgemotion/auth/motion
        user reader
        topic read edgemotion/#
        """.write(toFile: acl, atomically: true, encoding: .utf8)
        // A second user for the test's subscriber.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: TLSTests.passwd)
        p.arguments = ["-b", pw, "reader", "r3ad"]
        try p.run()
        p.waitUntilExit()
        return try MosquittoBroker.start(extraConfig: "allow_anonymous false\npassword_file \(pw)\nacl_file \(acl)\n")
    }

    func reader(_ broker: MosquittoBroker) throws -> MQTTRecorder {
        try MQTTRecorder(url: broker.url, username: "reader", password: "r3ad", pattern: "edgemotion/#")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: TLSTests.passwd), "/usr/bin/mosquitto_passwd missing (apt-get install mosquitto)"))
    func correctCredentialsFromAPasswordFilePublishAndAclForbiddenEventsDoNotLeak() throws {
        let dir = try Reliability.tempDirectory("auth")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try authBroker(dir)
        let sub = try reader(broker)
        try "s3cret\n".write(toFile: dir + "/agent-password", atomically: true, encoding: .utf8)
        chmod(dir + "/agent-password", 0o600)
        let config = try AgentProcess.writeConfig(Reliability.config(id: "auth", stateDirectory: dir, extra: """
        mqtt: { username: edge, password_file: \(dir)/agent-password }
        debug: { synthetic_events_per_minute: 600 }
        """))
        chmod(config, 0o600)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        usleep(3_000_000)
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0, "log:\n\(agent.log)")
        #expect(sub.messages(on: "edgemotion/auth/status").first?.payloadString == "online", "log:\n\(agent.log)")
        #expect(!sub.messages(on: "edgemotion/auth/sensor/accelerometer").isEmpty)
        // MQTT 3.1.1: mosquitto acknowledges a publish the ACL forbids and drops it silently, so the
        // agent cannot know (docs/reliability.md); the events never reach a subscriber.
        #expect(sub.messages(on: "edgemotion/auth/events/synthetic").isEmpty)
        #expect(!agent.log.contains("readable by every user"))
    }

    /// MQTT 5: mosquitto answers a publish its ACL forbids with PUBACK reason 135; the agent reports
    /// it (log, `health.last_error`, `dropped.refused`) instead of counting the event as delivered.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: TLSTests.passwd), "/usr/bin/mosquitto_passwd missing (apt-get install mosquitto)"))
    func overMQTT5AnAclRefusalIsReportedAndCounted() throws {
        let dir = try Reliability.tempDirectory("acl5")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try authBroker(dir)
        let sub = try reader(broker)
        let config = try AgentProcess.writeConfig(Reliability.config(id: "auth", stateDirectory: dir, extra: """
        mqtt: { username: edge, password: s3cret, protocol: "5" }
        debug: { synthetic_events_per_minute: 600 }
        """))
        chmod(config, 0o600)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        usleep(3_000_000)
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0, "log:\n\(agent.log)")
        #expect(agent.log.contains("not authorised"), "log:\n\(agent.log)")
        let health = try #require(sub.messages(on: "edgemotion/auth/health").last.flatMap {
            try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] })
        #expect((health["last_error"] as? String ?? "").contains("reason 135"), "\(health)")
        let stats = try #require(sub.messages(on: "edgemotion/auth/stats").last.flatMap {
            try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] })
        let refused = ((Reliability.outboxTopic(stats, "events/synthetic")?["dropped"] as? [String: Int]) ?? [:])["refused"] ?? 0
        #expect(refused >= 10, "events refused by the ACL are counted, not acknowledged: \(stats)")
        #expect(!sub.messages(on: "edgemotion/auth/sensor/accelerometer").isEmpty, "allowed topics still flow")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: TLSTests.passwd), "/usr/bin/mosquitto_passwd missing (apt-get install mosquitto)"))
    func aWrongPasswordIsReportedClearlyAndRetriedWithBackoffWithoutSpinning() throws {
        let dir = try Reliability.tempDirectory("badpw")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try authBroker(dir)
        let config = try AgentProcess.writeConfig(Reliability.config(id: "auth", stateDirectory: dir, extra: """
        mqtt: { username: edge, password: wrong }
        """))
        chmod(config, 0o644)   // world-readable with a password inside: must warn
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        usleep(8_000_000)
        let cpu = cpuSeconds(agent.pid)
        #expect(agent.isRunning)
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0)
        let log = agent.log
        let failures = log.components(separatedBy: "event=\"connect failed\"").count - 1
        #expect(failures >= 2 && failures <= 10, "\(failures) attempts in 8 s (backoff 0.5 s … 30 s)\n\(log)")
        #expect(log.contains("not authori") || log.contains("bad user name or password"), "a clear reason:\n\(log)")
        #expect(log.contains("readable by every user"), "world-readable config with a password must warn")
        #expect(cpu < 3.0, "\(cpu) s CPU in 8 s: busy loop?")
    }

    @Test func aWrongCertificateAuthorityIsReportedClearlyAndRetriedWithBackoff() throws {
        let certs = try TestCertificates.generate()
        let dir = try Reliability.tempDirectory("tls")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try MosquittoBroker.start(extraConfig: certs.listenerConfig())
        let url = "mqtts://127.0.0.1:\(broker.port)"
        // Good CA: publishes.
        let sub = try MQTTRecorder(url: url, caFile: certs.caFile, pattern: "edgemotion/#")
        let good = try AgentProcess.writeConfig(Reliability.config(id: "tls", stateDirectory: dir, extra: """
        mqtt: { tls: { ca_file: \(certs.caFile), version: tlsv1.2 } }
        """))
        let agent = try AgentProcess(["run", "--config", good, "--broker", url])
        usleep(3_000_000)
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0)
        #expect(!sub.messages(on: "edgemotion/tls/sensor/accelerometer").isEmpty, "log:\n\(agent.log)")
        // Wrong CA: clear error, backoff, no crash.
        let bad = try AgentProcess.writeConfig(Reliability.config(id: "tls2", stateDirectory: dir, extra: """
        mqtt: { tls: { ca_file: \(certs.otherCAFile) } }
        """))
        let rejected = try AgentProcess(["run", "--config", bad, "--broker", url])
        usleep(7_000_000)
        #expect(rejected.isRunning)
        rejected.signal(SIGTERM)
        #expect(rejected.waitForExit(timeout: 10) == 0)
        let log = rejected.log
        let failures = log.components(separatedBy: "event=\"connect failed\"").count - 1
        #expect(failures >= 2 && failures <= 10, "\(failures) attempts in 7 s\n\(log)")
        #expect(log.contains("certificate verify failed"), "log:\n\(log)")
        #expect(sub.messages(on: "edgemotion/tls2/sensor/accelerometer").isEmpty)
    }

    @Test func tlsInsecureIsLoggedLoudly() throws {
        let certs = try TestCertificates.generate()
        let dir = try Reliability.tempDirectory("insecure")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try MosquittoBroker.start(extraConfig: certs.listenerConfig(wrongName: true))
        let config = try AgentProcess.writeConfig(Reliability.config(id: "insecure", stateDirectory: dir, extra: """
        mqtt: { tls: { ca_file: \(certs.caFile), insecure: true } }
        """))
        let agent = try AgentProcess(["run", "--config", config, "--broker", "mqtts://127.0.0.1:\(broker.port)", "--duration", "2"])
        #expect(agent.waitForExit(timeout: 15) == 0)
        #expect(agent.log.contains("warning") && agent.log.contains("DISABLED"), "log:\n\(agent.log)")
        #expect(agent.log.contains("event=connected"))
    }
}

/// A libmosquitto subscriber with credentials or TLS, recording every message.
final class MQTTRecorder: @unchecked Sendable {
    let client: MQTTClient
    private let lock = NSLock()
    private var received: [MQTTMessage] = []

    init(url: String, username: String? = nil, password: String? = nil, caFile: String? = nil, pattern: String) throws {
        var o = MQTTConnectionOptions(address: try MQTTBrokerAddress(url: url), clientID: "rec-\(UInt32.random(in: 0...UInt32.max))",
                                      username: username, password: password)
        if let caFile { o.tls = MQTTTLSOptions(caFile: caFile) }
        o.reconnect = MQTTReconnectPolicy(initialDelay: .milliseconds(100), maxDelay: .seconds(1))
        client = try MQTTClient(options: o)
        client.onMessage = { [weak self] m in self?.lock.withLock { self?.received.append(m) } }
        try client.subscribe(pattern, qos: 1)
        try client.start()
        let deadline = Date().addingTimeInterval(5)
        while client.statistics.subscriptionsAcknowledged < 1, Date() < deadline { usleep(10_000) }
        guard client.statistics.subscriptionsAcknowledged >= 1 else {
            throw MosquittoBrokerError("test subscriber could not subscribe at \(url)")
        }
    }

    deinit { client.disconnect(timeout: .milliseconds(500)) }
    var messages: [MQTTMessage] { lock.withLock { received } }
    func messages(on topic: String) -> [MQTTMessage] { messages.filter { $0.topic == topic } }
}
