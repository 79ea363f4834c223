import Testing
@testable import Agent
import Messaging

/// Broker URLs, command-line overrides and the check-config command.
@Suite("Config overrides and broker URLs")
struct ConfigOverridesTests {
    @Test func brokerURLsParseWithDefaultPorts() throws {
        func parse(_ url: String) throws -> MQTTBrokerAddress { try MQTTBrokerAddress(parsing: url, requiringScheme: true) }
        #expect(try parse("mqtt://localhost") == MQTTBrokerAddress(host: "localhost", port: 1883))
        #expect(try parse("mqtts://b.example.com") == MQTTBrokerAddress(host: "b.example.com", port: 8883, useTLS: true))
        #expect(try parse("tcp://10.0.0.2:1884/") == MQTTBrokerAddress(host: "10.0.0.2", port: 1884))
        #expect(try parse("mqtt://[::1]:18830") == MQTTBrokerAddress(host: "::1", port: 18830))
        #expect(try parse("mqtt://[::1]:18830").description == "mqtt://[::1]:18830")
        #expect(try parse("MQTTS://h").useTLS)
    }

    @Test(arguments: [
        ("localhost:1883", "has no scheme"),
        ("http://h", "unsupported scheme 'http://'"),
        ("mqtt://h:0", "port '0' is not valid"),
        ("mqtt://h:99999", "port '99999' is not valid"),
        ("mqtt://user:pw@h", "credentials in the URL are not supported"),
        ("mqtt://h/topic", "has a path or query"),
        ("mqtt://::1", "IPv6 addresses in brackets"),
        ("mqtt://", "has no host"),
    ])
    func badBrokerURLsSayWhatIsWrong(url: String, expected: String) {
        do {
            _ = try MQTTBrokerAddress(parsing: url, requiringScheme: true)
            Issue.record("'\(url)' was accepted")
        } catch {
            #expect(error.description.contains(expected), "\(error)")
        }
    }

    /// The loader and the connection use one parser: a URL the loader accepts connects to the
    /// address it reported, and one it refuses is refused at connect time too (given a scheme).
    @Test(arguments: ["mqtt://h", "tcp://h:1", "mqtts://h", "ssl://h:9", "tls://[::1]", "mqtt://h/", "http://h",
                      "mqtt://h:0", "mqtt://u@h", "mqtt://h/x", "mqtt://[h]", "mqtt://a b", "mqtt://"])
    func theLoaderAndTheConnectionAgreeOnBrokerURLs(url: String) throws {
        let runtime = try? MQTTBrokerAddress(url: url)
        #expect((MQTTSettings.problem(withBroker: url) == nil) == (runtime != nil), "\(url)")
        if let runtime {
            let config = try ConfigurationLoader.parse(yaml: "mqtt:\n  broker: \(url)\n", fileName: "t.yaml")
            #expect(config.mqtt.brokerAddress == runtime)
        }
    }

    @Test func overridesReplaceBrokerDeviceIDAndLogLevel() throws {
        let base = try ConfigurationLoader.parse(yaml: "mqtt:\n  broker: mqtt://a\ndevice:\n  id: a\n", fileName: "t.yaml")
        let c = try base.applying(overrides: ConfigurationOverrides(broker: "mqtt://127.0.0.1:18830", deviceID: "b", logLevel: .debug))
        #expect(c.mqtt.broker == "mqtt://127.0.0.1:18830")
        #expect(c.mqtt.brokerAddress?.port == 18830)
        #expect(c.device.id == "b")
        #expect(c.resolvedTopicPrefix == "edgemotion/b")
        #expect(c.logging.level == .debug)
        #expect(try base.applying(overrides: ConfigurationOverrides()) == base)
    }

    @Test func invalidOverridesAreRejectedNamingTheOption() {
        do {
            _ = try AgentConfiguration.default.applying(overrides: ConfigurationOverrides(broker: "localhost", deviceID: "a/b"))
            Issue.record("invalid overrides accepted")
        } catch {
            #expect(error.diagnostics.map(\.keyPath) == ["--broker", "--device-id"])
            #expect(error.description.hasPrefix("command line: --broker: 'localhost' has no scheme"))
        }
    }

    @Test func checkConfigExitsZeroOneOrTwo() throws {
        let command = CheckConfigCommand()
        let good = try ConfigTestSupport.temporaryFile("source:\n  rate: 100\n")
        let bad = try ConfigTestSupport.temporaryFile("source:\n  rate: fast\n")
        defer {
            ConfigTestSupport.removeTemporaryFile(good)
            ConfigTestSupport.removeTemporaryFile(bad)
        }
        #expect(command.run(arguments: [good]) == 0)
        #expect(command.run(arguments: [bad]) == 1)
        #expect(command.run(arguments: ["/nonexistent/x.yaml"]) == 2)
        #expect(command.run(arguments: [good, "/nonexistent/x.yaml", bad]) == 2)
        #expect(command.run(arguments: []) == 64)
    }

    @Test func checkConfigSummaryNamesSourceRateAndBroker() throws {
        let c = try ConfigurationLoader.parse(yaml: "source:\n  type: i2c\n  rate: 100\n  i2c: { bus: 1, address: 0x6a, chip: lsm6ds3 }\nmqtt:\n  broker: mqtt://localhost\n", fileName: "t.yaml")
        #expect(CheckConfigCommand.summary(of: c) == "source i2c lsm6ds3 on /dev/i2c-1 at 0x6a at 100 Hz, broker mqtt://localhost:1883")
        #expect(CheckConfigCommand.summary(of: .default) == "source simulator walking at 200 Hz, broker none")
    }

    @Test func checkConfigIsRegistered() {
        #expect(CommandLineTool.commands.contains { $0.name == "check-config" })
    }
}
