import Foundation
import Testing
@testable import Agent
import Messaging

/// The reliability keys: outbox, spool, control, process, debug.
@Suite struct OutboxConfigurationTests {
    @Test func defaultsAreBoundedAndControlIsOff() throws {
        let c = try ConfigurationLoader.parse(yaml: "", fileName: "t.yaml")
        #expect(c.outbox == OutboxConfiguration(maxBytes: 4 << 20, maxAgeSeconds: 30, inflight: 16))
        #expect(c.spool == SpoolConfiguration(enabled: true, maxBytes: 8 << 20, fsync: .interval(milliseconds: 1000)))
        #expect(c.control.enabled == false)
        #expect(c.process.stopTimeoutSeconds == 5)
        #expect(c.debug.syntheticEventsPerMinute == 0)
    }

    @Test func everyKeyIsRead() throws {
        let c = try ConfigurationLoader.parse(yaml: """
        outbox: { max_bytes: 65536, max_age_s: 2.5, inflight: 4 }
        spool: { enabled: false, max_bytes: 8192, fsync: always, fsync_interval_ms: 50 }
        control: { enabled: true }
        process: { stop_timeout_s: 1.5, stats_interval_s: 2 }
        debug: { synthetic_events_per_minute: 60 }
        """, fileName: "t.yaml")
        #expect(c.outbox == OutboxConfiguration(maxBytes: 65536, maxAgeSeconds: 2.5, inflight: 4))
        #expect(c.spool == SpoolConfiguration(enabled: false, maxBytes: 8192, fsync: .always))
        #expect(c.control.enabled)
        #expect(c.process == ProcessSettings(stopTimeoutSeconds: 1.5, statsIntervalSeconds: 2))
        #expect(c.debug.syntheticEventsPerMinute == 60)
    }

    @Test("spool.fsync is read once into a typed policy that carries fsync_interval_ms")
    func fsyncIsTyped() throws {
        let interval = try ConfigurationLoader.parse(yaml: "spool: { fsync: interval, fsync_interval_ms: 250 }", fileName: "t.yaml")
        #expect(interval.spool.fsync == .interval(milliseconds: 250))
        let never = try ConfigurationLoader.parse(yaml: "spool: { fsync: never }", fileName: "t.yaml")
        #expect(never.spool.fsync == .never)
        let problems = ConfigTestSupport.problems("spool: { fsync: Always }")
        #expect(problems.contains { $0.contains("t.yaml") && $0.contains("spool.fsync") && $0.contains("did you mean 'always'") }, "\(problems)")
    }

    @Test("an empty config gives the outbox the Messaging defaults: one home for them")
    func emptyConfigMeansOutboxDefaults() throws {
        let c = try ConfigurationLoader.parse(yaml: "", fileName: "t.yaml")
        let d = OutboxSettings.defaults
        #expect(c.outbox.maxBytes == d.maximumStreamBytes && Int(c.outbox.maxAgeSeconds * 1000) == d.maximumStreamAgeMilliseconds)
        #expect(c.outbox.inflight == d.inflightWindow && c.spool.maxBytes == d.maximumSpoolBytes && c.spool.fsync == d.spoolFsync)
    }

    @Test func outOfRangeValuesAndTyposAreReportedWithTheirKeys() {
        let problems = ConfigTestSupport.problems("""
        outbox: { max_bytes: 10, inflight: 50 }
        spool: { fsync: sometimes, fsync_interval: 5 }
        process: { stop_timeout_s: 0 }
        """)
        #expect(problems.contains { $0.contains("outbox.max_bytes") && $0.contains("4096") })
        #expect(problems.contains { $0.contains("outbox.inflight") && $0.contains("20") })
        #expect(problems.contains { $0.contains("spool.fsync") && $0.contains("always, interval, never") })
        #expect(problems.contains { $0.contains("spool.fsync_interval") && $0.contains("fsync_interval_ms") })
        #expect(problems.contains { $0.contains("process.stop_timeout_s") })
    }

    @Test func referenceFileAndDocsDocumentEveryReliabilityKey() throws {
        let yaml = try String(contentsOf: ConfigTestSupport.packageRoot.appendingPathComponent("config/edgemotion.yaml"), encoding: .utf8)
        let docs = try String(contentsOf: ConfigTestSupport.packageRoot.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        let keys = OutboxConfiguration.keys + SpoolConfiguration.keys + ControlSettings.keys + ProcessSettings.keys + DebugSettings.keys
        for key in keys {
            #expect(yaml.contains(key + ":"), "config/edgemotion.yaml does not document '\(key)'")
            #expect(docs.contains("`" + key + "`"), "docs/configuration.md does not document '\(key)'")
        }
        for section in ["outbox", "spool", "control", "process", "debug"] {
            #expect(yaml.contains("\n" + section + ":"))
            #expect(docs.contains("### `" + section + "`"))
        }
    }

    @Test func fallbackBrokersAreAListOfCheckedURLs() throws {
        let c = try ConfigurationLoader.parse(yaml: """
        mqtt: { broker: "mqtt://a:1883", fallback_brokers: ["mqtt://b:1883", "mqtts://c"], failover_after_s: 5 }
        """, fileName: "t.yaml")
        #expect(c.mqtt.fallbackBrokers == ["mqtt://b:1883", "mqtts://c"])
        #expect(c.mqtt.failoverAfterSeconds == 5)
        #expect(c.mqtt.reconnectMaxSeconds == 3, "default cap")
        #expect(c.mqtt.reconnectMaxSeconds < c.outbox.maxAgeSeconds, "the default backoff never outlasts the default age bound")
        #expect(try ConfigurationLoader.parse(yaml: "mqtt: { reconnect_max_s: 2 }", fileName: "t.yaml").mqtt.reconnectMaxSeconds == 2)
        #expect(ConfigTestSupport.problems("mqtt: { reconnect_max_s: 0 }").first?.contains("mqtt.reconnect_max_s") == true)
        #expect(AgentRunner.brokerURLs(c) == ["mqtt://a:1883", "mqtt://b:1883", "mqtts://c"])
        let bad = ConfigTestSupport.problems("mqtt: { fallback_brokers: [\"http://x\"] }")
        #expect(bad.count == 1 && bad[0].contains("mqtt.fallback_brokers[0]"), "\(bad)")
        #expect(ConfigTestSupport.problems("mqtt: { fallback_brokers: \"mqtt://x\" }").first?.contains("expected a list") == true)
    }

    @Test func aWorldReadableConfigWithAPasswordIsFlagged() throws {
        let path = try ConfigTestSupport.temporaryFile("mqtt: { username: u, password: p }\n")
        defer { ConfigTestSupport.removeTemporaryFile(path) }
        chmod(path, 0o644)
        var c = try ConfigurationLoader.load(path: path)
        #expect(SecretFileCheck.warnings(for: c).count == 1)
        chmod(path, 0o600)
        #expect(SecretFileCheck.warnings(for: c).isEmpty)
        c.mqtt.password = nil
        chmod(path, 0o644)
        #expect(SecretFileCheck.warnings(for: c).isEmpty, "no secret inside: nothing to warn about")
    }
}
