import Foundation
import Testing
@testable import Agent

/// Every kind of mistake gives its own message at the exact line and column.
@Suite("Config diagnostics")
struct ConfigDiagnosticsTests {
    typealias S = ConfigTestSupport

    @Test func syntaxErrorReportsLibyamlsProblemAndContextAtItsPosition() throws {
        let error = try #require(S.error("source:\n  type: simulator\n rate: 3\n"))
        #expect(error.kind == .syntax)
        #expect(error.diagnostics.map(\.description) == [
            "t.yaml:3:2: syntax error: did not find expected key (while parsing a block mapping that started at line 1, column 1)"
        ])
    }

    @Test func unclosedFlowMappingIsASyntaxErrorOnTheLineWhereItWasNoticed() throws {
        let yaml = """
        streams:
          motion: { rate: 50, qos: 1
        logging:
          level: info
        """
        let error = try #require(S.error(yaml))
        #expect(error.kind == .syntax)
        let d = try #require(error.diagnostics.first)
        #expect(d.line == 3 && d.column == 8)
        #expect(d.message.contains("did not find expected ',' or '}'"))
        #expect(d.message.contains("while parsing a flow mapping that started at line 2, column 11"))
    }

    @Test func tabIndentationIsASyntaxError() throws {
        let error = try #require(S.error("source:\n\trate: 100\n"))
        #expect(error.kind == .syntax)
        #expect(error.diagnostics.first?.line == 2)
        #expect(error.diagnostics.first?.message.contains("found character that cannot start any token") == true)
    }

    @Test func invalidUTF8InAFileIsASyntaxErrorAtTheBadByte() throws {
        let path = try S.temporaryFile("")
        defer { S.removeTemporaryFile(path) }
        try Data("source:\n  type: ".utf8 + [0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: path))
        do {
            _ = try ConfigurationLoader.load(path: path)
            Issue.record("invalid UTF-8 loaded")
        } catch {
            #expect(error.kind == .syntax)
            #expect(error.description == path + ":2:9: syntax error: invalid leading UTF-8 octet (byte 0xff)")
        }
    }

    @Test func wrongTypeNamesTheExpectedType() {
        #expect(S.problems("streams:\n  accelerometer:\n    rate: fast\n") == [
            "t.yaml:3:11: streams.accelerometer.rate: expected a number, found 'fast'"
        ])
        #expect(S.problems("source:\n  simulator:\n    noise: maybe\n") == [
            "t.yaml:3:12: source.simulator.noise: expected true or false (yes/no and on/off also work), found 'maybe'"
        ])
        #expect(S.problems("source:\n  i2c:\n    bus: 1.5\n") == [
            "t.yaml:3:10: source.i2c.bus: expected an integer, found '1.5'"
        ])
        #expect(S.problems("mqtt:\n  broker:\n    host: x\n") == [
            "t.yaml:3:5: mqtt.broker: expected a text value, found a mapping"
        ])
    }

    @Test func sectionGivenAsAWordIsReportedWithItsKeys() {
        #expect(S.problems("source: simulator\n") == [
            "t.yaml:1:9: source: expected a mapping of keys (type, rate, simulator, replay, iio, i2c, data_ready, retry_max_s, mount), found 'simulator'"
        ])
    }

    @Test func outOfRangeStatesTheValueUnitAndAllowedRange() {
        #expect(S.problems("source:\n  rate: 20000\n") == [
            "t.yaml:2:9: source.rate: 20000 Hz is out of range; allowed: 0 < rate ≤ 10000"
        ])
        #expect(S.problems("source:\n  rate: 0\n") == [
            "t.yaml:2:9: source.rate: 0 Hz is out of range; allowed: 0 < rate ≤ 10000"
        ])
        #expect(S.problems("source:\n  i2c:\n    address: 0x78\n") == [
            "t.yaml:3:14: source.i2c.address: 0x78 is out of range; allowed: 0x03 ≤ address ≤ 0x77 (7-bit address, e.g. 0x68)"
        ])
    }

    @Test func unknownKeySuggestsTheClosestKey() {
        #expect(S.problems("streams:\n  motion:\n    publishrate: 5\n") == [
            "t.yaml:3:5: streams.motion.publishrate: unknown key; did you mean 'publish_rate'?"
        ])
        #expect(S.problems("streams:\n  motion:\n    publishRate: 5\n") == [
            "t.yaml:3:5: streams.motion.publishRate: unknown key; did you mean 'publish_rate'?"
        ])
        #expect(S.problems("mqtt:\n  keep_alive: 10\n") == [
            "t.yaml:2:3: mqtt.keep_alive: unknown key; did you mean 'keepalive'?"
        ])
    }

    @Test func unknownKeyWithNoCloseMatchListsTheAllowedKeys() {
        let problems = S.problems("device:\n  id: a\ncolour: red\n")
        #expect(problems.count == 1)
        let message = problems.first ?? ""
        #expect(message.hasPrefix("t.yaml:3:1: colour: unknown key; allowed here: device, source, streams, fusion, mqtt, logging, state_directory"))
        // Every top-level section is listed, however many later features add.
        for key in AgentConfiguration.keys { #expect(message.contains(key), "\(key) missing from: \(message)") }
    }

    @Test func duplicateKeyIsReportedAtTheSecondOccurrence() {
        let yaml = """
        mqtt:
          keepalive: 10
          broker: mqtt://localhost
          keepalive: 20
        """
        #expect(S.problems(yaml) == [
            "t.yaml:4:3: mqtt.keepalive: duplicate key; it is already set at line 2, column 3 — keep one of them"
        ])
    }

    @Test func duplicateSectionIsReported() {
        #expect(S.problems("logging:\n  level: info\nlogging:\n  level: debug\n") == [
            "t.yaml:3:1: logging: duplicate key; it is already set at line 1, column 1 — keep one of them"
        ])
    }

    @Test func missingFileSaysSoWithoutAPosition() throws {
        do {
            _ = try ConfigurationLoader.load(path: "/nonexistent/edgemotion.yaml")
            Issue.record("a missing file loaded")
        } catch {
            #expect(error.kind == .unreadable)
            #expect(error.description == "/nonexistent/edgemotion.yaml: cannot read configuration: No such file or directory")
        }
    }

    @Test func directoryIsUnreadable() throws {
        do {
            _ = try ConfigurationLoader.load(path: "/tmp")
            Issue.record("a directory loaded")
        } catch {
            #expect(error.kind == .unreadable)
            #expect(error.description == "/tmp: cannot read configuration: not a regular file (a directory, FIFO, socket or device); give the path of a file")
        }
    }

    @Test func badEnumListsAllowedValuesAndSuggests() {
        #expect(S.problems("source:\n  type: simulatr\n") == [
            "t.yaml:2:9: source.type: 'simulatr' is not allowed; allowed: simulator, replay, iio, i2c; did you mean 'simulator'?"
        ])
        #expect(S.problems("fusion:\n  reference_frame: xMagneticNorth\n") == [
            "t.yaml:2:20: fusion.reference_frame: 'xMagneticNorth' is not allowed; allowed: xArbitraryZVertical, xArbitraryCorrectedZVertical, xMagneticNorthZVertical, xTrueNorthZVertical"
        ])
        #expect(S.problems("logging:\n  level: verbose\n") == [
            "t.yaml:2:10: logging.level: 'verbose' is not allowed; allowed: trace, debug, info, notice, warning, error, critical"
        ])
    }

    @Test func everyProblemInAFileIsReportedInFileOrder() throws {
        let yaml = """
        source:
          type: simulatr
          rate: 20000
          simulator:
            real_time: maybe
        streams:
          accelerometer:
            publishrate: 5
            rate: fast
          motion:
            qos: 3
            qos: 1
        mqtt:
          keepalive: 0
          topic_prefix: /edge/+/x
          broker: localhost:1883
        fusion:
          latitude: 52,5
        """
        let error = try #require(S.error(yaml))
        #expect(error.kind == .invalid)
        let positions = error.diagnostics.map { "\($0.line!):\($0.column!) \($0.keyPath)" }
        #expect(positions == [
            "2:9 source.type",
            "3:9 source.rate",
            "5:16 source.simulator.real_time",
            "8:5 streams.accelerometer.publishrate",
            "9:11 streams.accelerometer.rate",
            "11:10 streams.motion.qos",
            "12:5 streams.motion.qos",
            "14:14 mqtt.keepalive",
            "15:17 mqtt.topic_prefix",
            "16:11 mqtt.broker",
            "18:13 fusion.latitude",
        ])
        #expect(error.diagnostics[10].message == "expected a number, found '52,5' (write decimals with '.', e.g. 0.5)")
        #expect(error.description.split(separator: "\n").count == 11)
    }

    @Test func keepaliveZeroIsRejectedWithTheReason() {
        #expect(S.problems("mqtt:\n  keepalive: 0\n") == [
            "t.yaml:2:14: mqtt.keepalive: 0 would switch keep-alive off, so a dead connection would never be noticed; use 5…65535 seconds (default 30)"
        ])
        #expect(S.problems("mqtt:\n  keepalive: 3\n") == [
            "t.yaml:2:14: mqtt.keepalive: 3 s is out of range; allowed: 5 ≤ keepalive ≤ 65535 seconds"
        ])
    }

    @Test func topicPrefixRejectsWildcardsSlashesAndUnknownPlaceholders() {
        #expect(S.problems("mqtt:\n  topic_prefix: a/#\n").first?.contains("wildcard") == true)
        #expect(S.problems("mqtt:\n  topic_prefix: a/b/\n").first?.contains("starts or ends with '/'") == true)
        #expect(S.problems("mqtt:\n  topic_prefix: /a\n").first?.contains("starts or ends with '/'") == true)
        #expect(S.problems("mqtt:\n  topic_prefix: a/{device}\n") == [
            "t.yaml:2:17: mqtt.topic_prefix: unknown placeholder '{device}'; the only placeholder is {device_id}"
        ])
        #expect(S.problems("mqtt:\n  topic_prefix: plant/{device_id}/imu\n").isEmpty)
    }

    @Test func aliasesAreRejectedWithAClearMessage() {
        let yaml = """
        streams:
          accelerometer: &s { rate: 50 }
          gyroscope: *s
        """
        #expect(S.problems(yaml) == [
            "t.yaml:3:14: aliases ('*s') are not supported; write the value out in full"
        ])
    }

    @Test func secondDocumentIsRejected() {
        #expect(S.problems("source:\n  rate: 100\n---\nsource:\n  rate: 50\n") == [
            "t.yaml:3:1: a second YAML document ('---') is not supported; keep every setting in one document"
        ])
    }

    @Test func publishRateAboveTheStreamRateIsRejected() {
        #expect(S.problems("streams:\n  motion:\n    rate: 5\n    publish_rate: 10\n") == [
            "t.yaml:4:19: streams.motion.publish_rate: publish_rate 10 Hz is above the motion stream's rate 5 Hz; publish_rate must be ≤ rate (each message carries rate/publish_rate samples)"
        ])
    }

    @Test func streamRateAboveTheSourceRateIsRejected() {
        #expect(S.problems("source:\n  rate: 50\nstreams:\n  accelerometer:\n    rate: 100\n") == [
            "t.yaml:5:11: streams.accelerometer.rate: 100 Hz is above source.rate (50 Hz); use at most the source rate, or 0 to follow it"
        ])
    }

    @Test func replayWithoutAFileIsRejectedAtTheSourceType() {
        #expect(S.problems("source:\n  type: replay\n") == [
            "t.yaml:2:9: source.replay.file: required when source.type is replay: the recording to play (.emr, CSV or CSV.gz)"
        ])
    }

    @Test func dataReadyNeedsChipAndLine() {
        #expect(S.problems("source:\n  data_ready:\n    chip: gpiochip0\n") == [
            "t.yaml:3:5: source.data_ready.line: required: the line offset (e.g. 17) or line name (e.g. GPIO17) wired to the sensor's data-ready pin"
        ])
    }

    /// A north frame on a source known to lack a magnetometer can never work: refused. True north
    /// without a location is Core Motion's `trueNorthNotAvailable` at run time, not a refusal
    /// (`True north` suite: magnetic north, said in every payload, announced once).
    @Test func northFramesNeedAMagnetometerAndTrueNorthWithoutALocationIsAccepted() {
        #expect(S.problems("source:\n  simulator:\n    magnetometer: false\nfusion:\n  reference_frame: xMagneticNorthZVertical\n") == [
            "t.yaml:5:20: fusion.reference_frame: xMagneticNorthZVertical needs a magnetometer, but the simulator has magnetometer: false; use xArbitraryZVertical or xArbitraryCorrectedZVertical"
        ])
        #expect(S.problems("fusion:\n  reference_frame: xTrueNorthZVertical\n").isEmpty)
        #expect(S.problems("fusion:\n  reference_frame: xTrueNorthZVertical\n  latitude: 52.5\n  longitude: 13.4\n").isEmpty)
        #expect(S.problems("fusion:\n  latitude: 52.5\n") == [
            "t.yaml:2:13: fusion.longitude: required together with latitude: give both or neither"
        ])
    }

    @Test func mqttCredentialAndCertificateCombinationsAreChecked() {
        #expect(S.problems("mqtt:\n  password: x\n") == [
            "t.yaml:2:13: mqtt.username: required when a password is set"
        ])
        #expect(S.problems("mqtt:\n  username: u\n  password: x\n  password_file: /p\n") == [
            "t.yaml:4:18: mqtt.password_file: give either password or password_file, not both"
        ])
        #expect(S.problems("mqtt:\n  tls:\n    cert_file: /c.pem\n") == [
            "t.yaml:3:16: mqtt.tls.key_file: a client certificate needs both cert_file and key_file"
        ])
    }

    @Test func descriptionWithoutKeyPathOmitsIt() {
        let d = ConfigDiagnostic(file: "f.yaml", line: 2, column: 3, keyPath: "", message: "m")
        #expect(d.description == "f.yaml:2:3: m")
    }
}
