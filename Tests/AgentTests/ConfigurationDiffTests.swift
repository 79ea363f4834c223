import Testing
@testable import Agent

/// What a reload redoes, decided from two configurations written by hand: the running one
/// (`base`) and the same text with one line changed. Each expectation is what docs/configuration.md
/// promises for that key (reload section), not a re-run of the diff's own formula.
@Suite("ConfigurationDiff")
struct ConfigurationDiffTests {
    static let base = """
    device: { id: board-7 }
    mqtt: { broker: "mqtt://127.0.0.1:1883", topic_prefix: "edgemotion/{device_id}" }
    source: { type: simulator, rate: 200 }
    streams:
      accelerometer: { rate: 100, publish_rate: 10, qos: 1 }
      gyroscope: { enabled: false }
      magnetometer: { enabled: false }
      motion: { rate: 50, publish_rate: 10, qos: 0 }
    logging: { level: info }
    process: { stats_interval_s: 1, stop_timeout_s: 4 }
    """

    func load(_ yaml: String) throws -> AgentConfiguration {
        try ConfigurationLoader.parse(yaml: yaml, fileName: "diff.yaml")
    }

    /// The diff from `base` to `base` with `line` replaced by `with` (or `with` appended).
    func diff(replacing line: String? = nil, with replacement: String, auxiliaryRunning: Bool = false) throws -> ConfigurationDiff {
        let old = try load(Self.base)
        let text: String
        if let line {
            #expect(Self.base.contains(line), "the base has the line \(line)")
            text = Self.base.replacing(line, with: replacement)
        } else {
            text = Self.base + "\n" + replacement
        }
        return ConfigurationDiff(from: old, to: try load(text), auxiliaryRunning: auxiliaryRunning)
    }

    @Test func theSameConfigurationChangesNothing() throws {
        let c = try load(Self.base)
        let d = ConfigurationDiff(from: c, to: c)
        #expect(d.unchanged)
        #expect(!d.reconnectBroker && d.pipeline == .keep && !d.reopenAuxiliary && !d.retuneLogging)
        #expect(d.deferredToNextStart.isEmpty)
    }

    @Test func aNewRateOrPublishRateRetunesTheRunningPipeline() throws {
        let d = try diff(replacing: "accelerometer: { rate: 100, publish_rate: 10, qos: 1 }",
                         with: "accelerometer: { rate: 50, publish_rate: 5, qos: 1 }")
        #expect(!d.unchanged)
        #expect(d.pipeline == .retune)
        #expect(!d.reconnectBroker)
    }

    @Test func switchingAStreamOnIsOnlyANewScheduleToo() throws {
        let d = try diff(replacing: "gyroscope: { enabled: false }", with: "gyroscope: { enabled: true }")
        #expect(d.pipeline == .retune)
    }

    @Test func aNewQoSChangesTheStreamsRouteAndRestartsThePipeline() throws {
        let d = try diff(replacing: "accelerometer: { rate: 100, publish_rate: 10, qos: 1 }",
                         with: "accelerometer: { rate: 100, publish_rate: 10, qos: 0 }")
        #expect(d.pipeline == .restart)
        #expect(!d.reconnectBroker, "the broker connection stays")
    }

    @Test func aNewPayloadFormatRestartsThePipeline() throws {
        let d = try diff(replacing: "motion: { rate: 50, publish_rate: 10, qos: 0 }",
                         with: "motion: { rate: 50, publish_rate: 10, qos: 0, format: influx }")
        #expect(d.pipeline == .restart)
    }

    @Test func aNewSourceRateRestartsThePipelineEvenWithTheSameSchedules() throws {
        let d = try diff(replacing: "source: { type: simulator, rate: 200 }", with: "source: { type: simulator, rate: 400 }")
        #expect(d.pipeline == .restart)
        #expect(!d.reconnectBroker)
    }

    @Test func aRateChangeTogetherWithActivityRestartsRatherThanRetunes() throws {
        let old = try load(Self.base)
        let new = try load(Self.base.replacing("accelerometer: { rate: 100, publish_rate: 10, qos: 1 }",
                                               with: "accelerometer: { rate: 50, publish_rate: 10, qos: 1 }")
                           + "\nactivity: { enabled: false }")
        #expect(ConfigurationDiff(from: old, to: new).pipeline == .restart)
    }

    @Test func anotherBrokerReconnectsAndKeepsThePipeline() throws {
        let d = try diff(replacing: "mqtt://127.0.0.1:1883", with: "mqtt://127.0.0.1:1884")
        #expect(d.reconnectBroker)
        #expect(d.pipeline == .keep, "same topics, same source: the pipeline runs on")
    }

    @Test func aNewTopicPrefixReconnectsAndRestartsThePipeline() throws {
        let d = try diff(replacing: "\"edgemotion/{device_id}\"", with: "\"moved/{device_id}\"")
        #expect(d.reconnectBroker, "status, meta and commands move to the new prefix")
        #expect(d.pipeline == .restart, "the streams' topics are routes of the pipeline")
    }

    @Test func aNewDeviceIDReconnectsAndRestartsThePipeline() throws {
        let d = try diff(replacing: "device: { id: board-7 }", with: "device: { id: board-8 }")
        #expect(d.reconnectBroker)
        #expect(d.pipeline == .restart)
    }

    @Test func controlSettingsReconnectOnly() throws {
        let d = try diff(with: "control: { enabled: true }")
        #expect(d.reconnectBroker, "the cmd/+ subscription is made by the client's installation")
        #expect(d.pipeline == .keep)
    }

    @Test func aLogLevelIsRetunedInPlace() throws {
        let d = try diff(replacing: "logging: { level: info }", with: "logging: { level: debug }")
        #expect(!d.unchanged && d.retuneLogging)
        #expect(!d.reconnectBroker && d.pipeline == .keep)
    }

    @Test func outboxSpoolStateDirectoryAndProcessWaitForTheNextStart() throws {
        #expect(try diff(with: "outbox: { max_bytes: 65536 }").deferredToNextStart == ["outbox"])
        #expect(try diff(with: "spool: { enabled: false }").deferredToNextStart == ["spool"])
        #expect(try diff(with: "state_directory: /tmp/elsewhere").deferredToNextStart == ["state_directory"])
        let threads = try diff(replacing: "process: { stats_interval_s: 1, stop_timeout_s: 4 }",
                               with: "process: { stats_interval_s: 1, stop_timeout_s: 4, pipeline_threads: 1 }")
        #expect(threads.deferredToNextStart == ["process"])
        #expect(threads.pipeline == .keep && !threads.reconnectBroker)
    }

    @Test func syntheticEventsAreReplaced() throws {
        let d = try diff(with: "debug: { synthetic_events_per_minute: 60 }")
        #expect(d.replaceSyntheticEvents)
        #expect(d.pipeline == .keep && !d.reconnectBroker)
    }

    @Test func auxiliaryDevicesReopenWhenTheirSettingsOrTheirRunningTopicsChange() throws {
        #expect(try diff(with: "auxiliary: { devices: [bme280] }").reopenAuxiliary)
        let prefix = (line: "\"edgemotion/{device_id}\"", with: "\"moved/{device_id}\"")
        #expect(try diff(replacing: prefix.line, with: prefix.with, auxiliaryRunning: true).reopenAuxiliary)
        #expect(try !diff(replacing: prefix.line, with: prefix.with, auxiliaryRunning: false).reopenAuxiliary,
                "nothing open, nothing to reopen")
    }

    @Test func aKeptCalibrationRestartsThePipelineOfAnUnchangedConfiguration() throws {
        let c = try load(Self.base)
        let d = ConfigurationDiff(from: c, to: c, restartPipeline: true)
        #expect(!d.unchanged)
        #expect(d.pipeline == .restart)
        #expect(!d.reconnectBroker)
    }
}
