import Foundation
import Testing
import Logging
import MotionCore
@testable import Agent
import Messaging

/// Values are read into the typed configuration correctly.
@Suite("Config loader")
struct ConfigLoaderTests {
    typealias S = ConfigTestSupport

    @Test func emptyTextAndCommentOnlyTextGiveTheDefaults() throws {
        #expect(try ConfigurationLoader.parse(yaml: "", fileName: "e.yaml") == .default)
        #expect(try ConfigurationLoader.parse(yaml: "# nothing\n\n", fileName: "e.yaml") == .default)
        #expect(try ConfigurationLoader.parse(yaml: "---\n", fileName: "e.yaml") == .default)
    }

    @Test func emptyFileOnDiskLoadsAsDefaultsWithItsPath() throws {
        let path = try S.temporaryFile("")
        defer { S.removeTemporaryFile(path) }
        let config = try ConfigurationLoader.load(path: path)
        #expect(config.sourceFile == path)
        #expect(config.source == SourceSettings())
        #expect(config.stateDirectory == "/var/lib/edgemotion")
    }

    @Test func missingSectionsAndKeysKeepTheirDefaults() throws {
        let config = try ConfigurationLoader.parse(yaml: "source:\n  rate: 400\nstreams:\n  motion:\n    qos: 1\n", fileName: "t.yaml")
        #expect(config.source.rate == 400)
        #expect(config.source.kind == .simulator)
        #expect(config.streams.motion == StreamSettings(enabled: true, rate: 50, publishRate: 10, qos: 1, retain: false))
        #expect(config.streams.accelerometer == StreamSettings(enabled: true, rate: 100, publishRate: 10, qos: 0, retain: false))
        #expect(config.mqtt.keepAlive == 30)
        #expect(config.mqtt.topicPrefix == "edgemotion/{device_id}")
        #expect(config.logging.level == .info)
    }

    @Test func everySectionIsReadIntoItsTypedValue() throws {
        let yaml = """
        device:
          id: pi-kitchen
        source:
          type: i2c
          rate: 104
          simulator: { scenario: cycling, seed: 0xFFFFFFFFFFFFFFFF, real_time: off, magnetometer: no, gyroscope: yes, gyro_bias_dps: -1.25, noise: false, burst: 16 }
          replay: { file: rec.csv.gz, speed: max, loop: on }
          iio: { uri: "ip:10.0.0.2", device: 0, trigger: hrtimer, buffer: false, buffer_length: 16 }
          i2c: { bus: 3, address: 104, chip: lsm6dsox, accel_range_g: 16, gyro_range_dps: 125, lowpass_hz: 41.5 }
          data_ready: { chip: gpiochip0, line: 17 }
        streams:
          accelerometer: { enabled: false, rate: 0, publish_rate: 1, qos: 2, retain: true }
        fusion:
          filter: complementary
          reference_frame: xArbitraryZVertical
          latitude: -33.9
          longitude: 151.2
          altitude_m: 58
        mqtt:
          broker: mqtts://broker.example.com
          client_id: kitchen
          keepalive: 60
          topic_prefix: home/{device_id}/imu
          username: pi
          password_file: /etc/edgemotion/password
          tls: { ca_file: /etc/ca.pem, cert_file: /c.pem, key_file: /k.pem, version: tlsv1.3, ciphers: HIGH, insecure: true }
          protocol: 5
        logging:
          level: DEBUG
        state_directory: /tmp/em
        """
        let c = try ConfigurationLoader.parse(yaml: yaml, fileName: "t.yaml")
        #expect(c.device.id == "pi-kitchen")
        #expect(c.source.kind == .i2c && c.source.rate == 104)
        #expect(c.source.simulator == SimulatorSettings(scenario: "cycling", seed: .max, realTime: false, magnetometer: false,
                                                         gyroscope: true, gyroBiasDegreesPerSecond: -1.25, noise: false, burst: 16))
        #expect(c.source.replay == ReplaySettings(file: "rec.csv.gz", speed: .max, loop: true))
        #expect(c.source.iio == IIOSettings(uri: "ip:10.0.0.2", device: "0", trigger: "hrtimer", buffer: false, bufferLength: 16))
        #expect(c.source.i2c == I2CSettings(bus: 3, address: 0x68, chip: "lsm6dsox", accelRangeG: 16, gyroRangeDPS: 125, lowPassHz: 41.5))
        #expect(c.source.dataReady == DataReadySettings(chip: "gpiochip0", line: "17"))
        #expect(c.streams.accelerometer == StreamSettings(enabled: false, rate: 0, publishRate: 1, qos: 2, retain: true))
        #expect(c.fusion == FusionSettings(filter: "complementary", referenceFrame: .xArbitraryZVertical,
                                           latitude: -33.9, longitude: 151.2, altitudeMeters: 58))
        #expect(c.mqtt.broker == "mqtts://broker.example.com")
        #expect(c.mqtt.brokerAddress == MQTTBrokerAddress(host: "broker.example.com", port: 8883, useTLS: true))
        #expect(c.mqtt.clientID == "kitchen" && c.mqtt.keepAlive == 60 && c.mqtt.protocol == "5")
        #expect(c.mqtt.username == "pi" && c.mqtt.password == nil && c.mqtt.passwordFile == "/etc/edgemotion/password")
        #expect(c.mqtt.tls == MQTTTLSOptions(caFile: "/etc/ca.pem", certFile: "/c.pem", keyFile: "/k.pem", version: .tlsv1_3, ciphers: "HIGH", insecure: true))
        #expect(c.logging.level == .debug)
        #expect(c.stateDirectory == "/tmp/em")
        #expect(c.resolvedTopicPrefix == "home/pi-kitchen/imu")
    }

    @Test(arguments: ["0x68", "104", "0X68", "0b1101000"])
    func i2cAddressAcceptsHexAndDecimal(text: String) throws {
        let c = try ConfigurationLoader.parse(yaml: "source:\n  i2c:\n    address: \(text)\n", fileName: "t.yaml")
        #expect(c.source.i2c.address == 0x68)
    }

    @Test(arguments: [("true", true), ("yes", true), ("On", true), ("TRUE", true), ("false", false), ("no", false), ("off", false)])
    func booleansAcceptTrueFalseYesNoOnOff(text: String, value: Bool) throws {
        let c = try ConfigurationLoader.parse(yaml: "source:\n  replay:\n    loop: \(text)\n", fileName: "t.yaml")
        #expect(c.source.replay.loop == value)
    }

    @Test func numbersParseTheSameUnderACommaDecimalLocale() throws {
        let saved = setlocale(LC_ALL, nil).map { String(cString: $0) } ?? "C"
        defer { setlocale(LC_ALL, saved) }
        var active = "de_DE.UTF-8"
        if setlocale(LC_ALL, active) == nil {
            active = "C.UTF-8"
            setlocale(LC_ALL, active)
            print("note: de_DE.UTF-8 is not installed (localedef -i de_DE -f UTF-8 de_DE.UTF-8); checking under C.UTF-8 only")
        } else {
            // Prove the locale really is active: C's strtod now stops at the '.'.
            #expect(strtod("0.5", nil) == 0)
            #expect(String(cString: localeconv().pointee.decimal_point) == ",")
        }
        let c = try ConfigurationLoader.parse(yaml: "source:\n  rate: 12.5\n  simulator:\n    gyro_bias_dps: 0.5\n", fileName: "t.yaml")
        #expect(c.source.simulator.gyroBiasDegreesPerSecond == 0.5, "under \(active)")
        #expect(c.source.rate == 12.5)
        #expect(!S.problems("source:\n  simulator:\n    gyro_bias_dps: 0,5\n").isEmpty, "a comma decimal must stay an error under \(active)")
    }

    @Test func simulatorBurstAutoFollowsTheFastestStreamCappedAtTenMilliseconds() throws {
        let defaults = StreamSettingsSet()
        let auto = SimulatorSettings()
        #expect(auto.burst == 0)
        #expect(auto.effectiveBurst(sourceRate: 1000, streams: defaults) == 10)
        #expect(auto.effectiveBurst(sourceRate: 200, streams: defaults) == 2)
        #expect(auto.effectiveBurst(sourceRate: 100, streams: defaults) == 1)
        #expect(auto.effectiveBurst(sourceRate: 8000, streams: defaults) == 80)
        // A stream published once per sample: no burst (no added latency).
        var perSample = defaults
        perSample.motion = StreamSettings(enabled: true, rate: 0, publishRate: 1000)
        #expect(auto.effectiveBurst(sourceRate: 1000, streams: perSample) == 1)
        // …unless that stream is off.
        perSample.motion.enabled = false
        #expect(auto.effectiveBurst(sourceRate: 1000, streams: perSample) == 10)
        // An explicit burst wins.
        #expect(SimulatorSettings(burst: 25).effectiveBurst(sourceRate: 1000, streams: perSample) == 25)
        let c = try ConfigurationLoader.parse(yaml: "source:\n  rate: 1000\n  simulator:\n    burst: 1\n", fileName: "t.yaml")
        #expect(c.source.simulator.burst == 1)
        #expect(!S.problems("source:\n  simulator:\n    burst: 5000\n").isEmpty)
        #expect(!S.problems("source:\n  simulator:\n    burst: -1\n").isEmpty)
    }

    @Test func nullMeansUnsetForOptionalKeysAndDefaultsForSections() throws {
        let c = try ConfigurationLoader.parse(yaml: "device:\nmqtt:\n  broker: ~\n  tls: null\nsource:\n  data_ready:\n", fileName: "t.yaml")
        #expect(c.device.id == nil && c.mqtt.broker == nil && c.mqtt.tls == nil && c.source.dataReady == nil)
    }

    @Test func nullForARequiredNumberIsAnError() {
        #expect(S.problems("source:\n  rate:\n") == [
            "t.yaml:2:8: source.rate: expected a number, found nothing (null); remove the key to use the default"
        ])
    }

    @Test func quotedNumbersAreAcceptedButQuotedTextIsNotANumber() throws {
        let c = try ConfigurationLoader.parse(yaml: "source:\n  rate: \"250\"\n", fileName: "t.yaml")
        #expect(c.source.rate == 250)
        #expect(S.problems("source:\n  rate: \"inf\"\n") == ["t.yaml:2:9: source.rate: expected a number, found 'inf'"])
        #expect(S.problems("source:\n  rate: .nan\n") == ["t.yaml:2:9: source.rate: expected a number, found '.nan'"])
    }

    @Test func topicPrefixPlaceholderIsReplacedByTheDeviceID() throws {
        var c = try ConfigurationLoader.parse(yaml: "device:\n  id: board_7\nmqtt:\n  topic_prefix: site/{device_id}/imu/{device_id}\n", fileName: "t.yaml")
        #expect(c.resolvedTopicPrefix == "site/board_7/imu/board_7")
        #expect(c.mqtt.topicPrefix == "site/{device_id}/imu/{device_id}")
        c.device.id = "other"
        #expect(c.resolvedTopicPrefix == "site/other/imu/other")
        #expect(MQTTSettings().resolvedTopicPrefix(deviceID: "pi") == "edgemotion/pi")
    }

    @Test func hostNameDeviceIDIsSanitized() {
        #expect(DeviceSettings.sanitize("pi.local") == "pi-local")
        #expect(DeviceSettings.sanitize("a b/c+#é") == "a-b-c---")
        let id = DeviceSettings().resolvedID()
        #expect(DeviceSettings.isValid(id: id), "resolved id '\(id)'")
        #expect(DeviceSettings(id: "x.y").resolvedID() == "x-y")
    }

    @Test func invalidDeviceIDIsRejected() {
        #expect(S.problems("device:\n  id: pi/kitchen\n") == [
            "t.yaml:2:7: device.id: 'pi/kitchen' is not a valid device id; use 1…64 letters, digits, '_' or '-' (it becomes part of MQTT topics)"
        ])
    }

    @Test func streamRateZeroFollowsTheSourceRate() throws {
        let c = try ConfigurationLoader.parse(yaml: "source:\n  rate: 400\nstreams:\n  motion: { rate: 0, publish_rate: 20 }\n", fileName: "t.yaml")
        #expect(c.streams.motion.effectiveRate(sourceRate: c.source.rate) == 400)
        #expect(c.streams.motion.samplesPerMessage(sourceRate: c.source.rate) == 20)
        #expect(c.streams.accelerometer.effectiveRate(sourceRate: 50) == 50)
    }
}
