import Foundation
import Testing
@testable import Agent
import Messaging

/// The shipped files in `config/` must always load.
@Suite("Config files")
struct ConfigFilesTests {
    static let configDirectory = ConfigTestSupport.packageRoot.appendingPathComponent("config")

    static var shippedFiles: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: configDirectory.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted()
    }

    @Test func configDirectoryHasTheThreeDocumentedFiles() {
        let files = Self.shippedFiles
        #expect(files.contains("demo.yaml"))
        #expect(files.contains("edgemotion.yaml"))
        #expect(files.contains("replay-broad.yaml"))
    }

    @Test(arguments: ConfigFilesTests.shippedFiles)
    func everyShippedFileLoads(name: String) throws {
        let path = Self.configDirectory.appendingPathComponent(name).path
        do {
            let config = try ConfigurationLoader.load(path: path)
            #expect(config.sourceFile == path)
        } catch {
            Issue.record("\(name) does not load:\n\(error)")
        }
    }

    @Test func referenceFileSpellsOutExactlyTheDefaults() throws {
        var config = try ConfigurationLoader.load(path: Self.configDirectory.appendingPathComponent("edgemotion.yaml").path)
        config.sourceFile = nil
        #expect(config == AgentConfiguration.default)
    }

    @Test func referenceFileMentionsEveryKeyTheLoaderAccepts() throws {
        let text = try String(contentsOf: Self.configDirectory.appendingPathComponent("edgemotion.yaml"), encoding: .utf8)
        let all = AgentConfiguration.keys + DeviceSettings.keys + SourceSettings.keys + SimulatorSettings.keys
            + ReplaySettings.keys + IIOSettings.keys + I2CSettings.keys + DataReadySettings.keys
            + StreamSettingsSet.keys + StreamSettings.keys + FusionSettings.keys + MQTTSettings.keys
            + MQTTTLSOptions.keys + LoggingSettings.keys
        for key in all {
            #expect(text.contains(key + ":"), "edgemotion.yaml does not document '\(key)'")
        }
    }

    @Test func demoRunsTheWalkingSimulatorAt200HzWithEveryStreamAndNoBroker() throws {
        let config = try ConfigurationLoader.load(path: Self.configDirectory.appendingPathComponent("demo.yaml").path)
        #expect(config.source.kind == .simulator)
        #expect(config.source.rate == 200)
        #expect(config.source.simulator.scenario == "walking")
        #expect(config.source.simulator.magnetometer)
        #expect(config.streams.accelerometer.enabled && config.streams.gyroscope.enabled)
        #expect(config.streams.magnetometer.enabled && config.streams.motion.enabled)
        #expect(config.mqtt.broker == nil)
    }

    @Test func replayBroadPointsAtTheSharedRecordingAtMaxSpeed() throws {
        let config = try ConfigurationLoader.load(path: Self.configDirectory.appendingPathComponent("replay-broad.yaml").path)
        #expect(config.source.kind == .replay)
        #expect(config.source.replay.speed == .max)
        let file = try #require(config.source.replay.file)
        #expect(file == "../shared/data/fusion/01_undisturbed_slow_rotation_A.csv.gz")
        // The path is relative to the package root (the working directory of `swift test`).
        let shared = ConfigTestSupport.packageRoot.appendingPathComponent("../shared/data/fusion").standardized
        if FileManager.default.fileExists(atPath: shared.path) {
            let resolved = ConfigTestSupport.packageRoot.appendingPathComponent(file).standardized.path
            #expect(FileManager.default.fileExists(atPath: resolved), "\(resolved) is missing")
        } else {
            print("note: \(shared.path) is absent; not checking that the replay file exists")
        }
    }
}
