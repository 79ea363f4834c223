import Foundation
import Testing
import Messaging
import TestSupport

/// docs/calibration.md, followed as a board owner would: its commands run with the real binary
/// and the agent that starts afterwards applies the file they wrote. The simulator stands in for
/// the board: still (`stationary`), with its documented constant gyroscope bias
/// (0.5, −0.3, 0.2) °/s (`SimulatorOptions.gyroBias`), so the truth is known without our formula.
@Suite("Calibration guide", .serialized, .ownThread)
struct CalibrationGuideTests {
    static let simulatedBiasDegreesPerSecond = [0.5, -0.3, 0.2]
    static let guideConfig = "/etc/edgemotion/edgemotion.yaml"

    /// The shell lines of the guide's code block.
    static func guideLines() throws -> [String] {
        let text = try String(contentsOf: ConfigTestSupport.packageRoot.appendingPathComponent("docs/calibration.md"), encoding: .utf8)
        let block = try #require(text.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "```").first)
        return block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    func yaml(id: String, state: String) -> String {
        """
        device: { id: \(id) }
        source:
          type: simulator
          rate: 200
          simulator: { scenario: stationary, seed: 5, real_time: true }
        streams:
          accelerometer: { enabled: false }
          gyroscope: { enabled: false }
          magnetometer: { enabled: false }
          motion: { rate: 20, publish_rate: 5 }
        fusion: { gyro_bias_learning: false }
        state_directory: \(state)
        """
    }

    /// Runs `line` through /bin/sh (so the guide's globs expand) with `edgemotion` being the built binary.
    func shell(_ line: String) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        let binary = AgentProcess.executable
        p.arguments = ["-c", line.replacingOccurrences(of: "edgemotion ", with: "'\(binary)' ") + " 2>&1"]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, out)
    }

    /// The `gyro_bias` of the agent's `motion` samples and its `meta.calibration`, after ~3 s.
    func runAgent(config: String, id: String) throws -> (bias: [Double]?, calibration: String?, log: String) {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/\(id)/#"])
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        _ = sub.waitFor(count: 3, topic: "edgemotion/\(id)/motion", timeout: .seconds(15))
        agent.signal(SIGTERM)
        _ = agent.waitForExit(timeout: 10)
        let meta = sub.messages(on: "edgemotion/\(id)/meta").last.flatMap {
            try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }
        let motion = sub.messages(on: "edgemotion/\(id)/motion").last.flatMap {
            try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }
        let sample = (motion?["samples"] as? [[String: Any]])?.last
        return (sample?["gyro_bias"] as? [Double], meta?["calibration"] as? String, agent.log)
    }

    @Test func theGuidesGyroscopeStepWritesTheFileTheAgentApplies() throws {
        let lines = try Self.guideLines()
        // Every command of the guide works on the agent's own configuration, so the file lands
        // where the agent looks and names the sensor the agent checks.
        let commands = lines.filter { $0.hasPrefix("edgemotion ") }
        #expect(commands.count == 6, "\(commands)")
        for c in commands { #expect(c.contains("--config \(Self.guideConfig)"), "\(c)") }

        let dir = try Reliability.tempDirectory("calguide")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/edgemotion.yaml"
        try yaml(id: "guide-board", state: dir + "/state").write(toFile: config, atomically: true, encoding: .utf8)

        // Step 1 of the guide, literally, except: the config and /tmp live in the test's
        // directory, and the 30 s still recording lasts 3 s.
        let step = lines.drop { !$0.hasPrefix("# 1.") }.dropFirst().prefix { !$0.isEmpty }
        #expect(step.count == 2, "\(step)")
        for line in step {
            let local = line.replacingOccurrences(of: " /tmp/", with: " \(dir)/")
                .replacingOccurrences(of: Self.guideConfig, with: config)
                .replacingOccurrences(of: "--duration 30s", with: "--duration 3s")
            let (status, out) = try shell(local)
            #expect(status == 0, "\(local)\n\(out)")
        }
        // The default path: the agent's own, in its state directory.
        let file = dir + "/state/edgemotion-calibration.txt"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("sensor = guide-board\n"), "\(text)")

        let (bias, calibration, log) = try runAgent(config: config, id: "guide-board")
        #expect(calibration == "loaded", "\(log)")
        #expect(log.contains("calibration loaded"), "\(log)")
        // Learning is off: the bias fusion subtracts is the file's, i.e. the simulator's.
        let b = try #require(bias, "no motion samples: \(log)")
        for k in 0..<3 {
            #expect(abs(b[k] * 180 / .pi - Self.simulatedBiasDegreesPerSecond[k]) < 0.05, "gyro_bias \(b) rad/s")
        }

        // The same file on another board (another device.id) is not applied.
        try yaml(id: "other-board", state: dir + "/state").write(toFile: config, atomically: true, encoding: .utf8)
        let (foreignBias, foreignCalibration, foreignLog) = try runAgent(config: config, id: "other-board")
        #expect(foreignCalibration == "rejected", "\(foreignLog)")
        #expect(foreignLog.contains("made for sensor 'guide-board', but this is 'other-board'"), "\(foreignLog)")
        let fb = try #require(foreignBias, "no motion samples: \(foreignLog)")
        #expect(fb.allSatisfy { abs($0) < 1e-9 }, "nothing applied: \(fb)")
    }
}
