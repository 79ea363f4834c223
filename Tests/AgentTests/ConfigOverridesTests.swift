import Testing
@testable import Agent

/// Broker URLs, command-line overrides and the check-config command.
@Suite("Config overrides and broker URLs")
struct ConfigOverridesTests {
    @Test func brokerURLsParseWithDefaultPorts() throws {
        #expect(try BrokerAddress(parsing: "mqtt://localhost") == BrokerAddress(scheme: .mqtt, host: "localhost", port: 1883))
        #expect(try BrokerAddress(parsing: "mqtts://b.example.com") == BrokerAddress(scheme: .mqtts, host: "b.example.com", port: 8883))
        #expect(try BrokerAddress(parsing: "tcp://10.0.0.2:1884/") == BrokerAddress(scheme: .tcp, host: "10.0.0.2", port: 1884))
        #expect(try BrokerAddress(parsing: "mqtt://[::1]:18830") == BrokerAddress(scheme: .mqtt, host: "::1", port: 18830))
        #expect(try BrokerAddress(parsing: "mqtt://[::1]:18830").description == "mqtt://[::1]:18830")
        #expect(try BrokerAddress(parsing: "MQTTS://h").usesTLS)
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
            _ = try BrokerAddress(parsing: url)
            Issue.record("'\(url)' was accepted")
        } catch {
            #expect(error.description.contains(expected), "\(error)")
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
