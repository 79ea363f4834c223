import Testing
import TestSupport
@testable import Messaging

@Suite struct ReconnectBackoffTests {
    /// The issue's schedule: quick first retries 0.1, 0.2, 0.5, 1, 2 s, then the default cap of a
    /// few seconds; each wait jittered within [ceiling/2, ceiling].
    @Test func defaultDelaysRetryQuicklyFirstAndStayBelowTheCapWithJitter() {
        var b = ReconnectBackoff(policy: MQTTReconnectPolicy())
        var rng = SplitMix64(state: 7)
        var ceilings: [Int64] = []
        for _ in 0..<20 {
            let ceiling = b.ceiling.milliseconds
            ceilings.append(ceiling)
            let d = b.nextDelay(using: &rng).milliseconds
            #expect(d >= ceiling / 2 && d <= ceiling, "delay \(d) outside [\(ceiling / 2), \(ceiling)]")
        }
        #expect(Array(ceilings.prefix(7)) == [100, 200, 500, 1000, 2000, 3000, 3000])
        #expect(ceilings.last == 3000)
    }

    @Test func aLargerCapContinuesTheOneTwoFiveSeries() {
        var b = ReconnectBackoff(policy: MQTTReconnectPolicy(initialDelay: .milliseconds(100), maxDelay: .seconds(30)))
        var ceilings: [Int64] = []
        for _ in 0..<10 { ceilings.append(b.ceiling.milliseconds); _ = b.nextDelay() }
        #expect(ceilings == [100, 200, 500, 1000, 2000, 5000, 10000, 20000, 30000, 30000])
    }

    /// A 10 s broker restart must not outlast the outbox's age bound: the default cap is below
    /// the default `outbox.max_age_s` (30 s), and even the sum of every wait during a 10 s outage
    /// plus one more cap stays below it.
    @Test func theDefaultBackoffNeverExceedsTheDefaultOutboxAge() {
        let policy = MQTTReconnectPolicy()
        let defaultMaxAgeMilliseconds: Int64 = 30_000        // outbox.max_age_s default (docs/configuration.md)
        #expect(policy.maxDelay.milliseconds < defaultMaxAgeMilliseconds)
        var b = ReconnectBackoff(policy: policy)
        var elapsed: Int64 = 0
        while elapsed < 10_000 { elapsed += b.ceiling.milliseconds; _ = b.nextDelay() }
        #expect(elapsed + policy.maxDelay.milliseconds < defaultMaxAgeMilliseconds)
    }

    @Test func jitterSpreadsDelaysInsteadOfRepeatingOneValue() {
        var rng = SplitMix64(state: 1)
        var seen = Set<Int64>()
        for _ in 0..<50 {
            var b = ReconnectBackoff(policy: MQTTReconnectPolicy(initialDelay: .seconds(1), maxDelay: .seconds(1)))
            seen.insert(b.nextDelay(using: &rng).milliseconds)
        }
        #expect(seen.count > 20)
    }

    @Test func resetStartsAgainFromTheInitialCeiling() {
        var b = ReconnectBackoff(policy: MQTTReconnectPolicy(initialDelay: .milliseconds(100), maxDelay: .seconds(5)))
        for _ in 0..<5 { _ = b.nextDelay() }
        #expect(b.ceiling.milliseconds == 5000)
        b.reset()
        #expect(b.ceiling.milliseconds == 100)
        #expect(b.failures == 0)
    }
}

@Suite struct MQTTErrorTests {
    @Test func connack2ExplainsTheKeepaliveTrap() {
        let e = MQTTError(.brokerRefused(code: 2), context: "broker:1883")
        #expect(e.description.contains("CONNACK 2"))
        #expect(e.description.contains("identifier rejected"))
        #expect(e.description.contains("keepalive"))
        #expect(e.description.contains("broker:1883"))
    }

    @Test func mosquittoCodesMapToNamedKinds() {
        #expect(MQTTError.Kind(mosquittoCode: 4) == .notConnected)
        #expect(MQTTError.Kind(mosquittoCode: 7) == .connectionLost)
        #expect(MQTTError.Kind(mosquittoCode: 14, errno: 111) == .system(errno: 111))
        #expect(MQTTError.Kind(mosquittoCode: 25) == .oversizePacket)
        #expect(MQTTError.Kind(mosquittoCode: 999) == .library(code: 999))
        let e = MQTTError(mosquittoCode: 4, context: "h:1 topic a/b")
        #expect(e.description.hasPrefix("MOSQ_ERR_NO_CONN (h:1 topic a/b)"))
    }

    @Test func invalidOptionsAreCaughtBeforeConnecting() throws {
        let address = MQTTBrokerAddress(host: "h", port: 1883)
        for bad in [
            MQTTConnectionOptions(address: address, clientID: "x", keepAlive: 0),
            MQTTConnectionOptions(address: address, clientID: "", cleanSession: false),
            MQTTConnectionOptions(address: address, clientID: "x", password: "p"),
            MQTTConnectionOptions(address: address, clientID: "x", will: MQTTMessage(topic: "a/#", string: "x")),
            MQTTConnectionOptions(address: address, clientID: "x", tls: MQTTTLSOptions(caFile: "/ca.pem")),
        ] {
            #expect(throws: MQTTError.self) { try MQTTClient(options: bad) }
        }
        var tls = MQTTConnectionOptions(address: MQTTBrokerAddress(host: "h", port: 8883, useTLS: true), clientID: "x",
                                        tls: MQTTTLSOptions(certFile: "/c.pem"))
        #expect(throws: MQTTError.self) { try tls.validate() }
        tls.tls = MQTTTLSOptions(caFile: "/nonexistent/ca.pem")
        do {
            _ = try MQTTClient(options: tls)
            Issue.record("a missing CA file must be reported")
        } catch {
            #expect(error.description.contains("/nonexistent/ca.pem"), "\(error)")
        }
    }
}
