import Foundation
import Testing
import Messaging
import TestSupport
@testable import Agent

@Suite("InfluxDB line protocol", .ownThread)
struct InfluxLineProtocolTests {
    func text(_ build: (inout LineProtocolWriter) -> Void) -> String {
        var w = LineProtocolWriter(capacity: 256)
        build(&w)
        return String(decoding: w.buffer, as: UTF8.self)
    }

    @Test func numbersAreFixedPointWithTrailingZerosTrimmedAndIntegersSuffixed() {
        let line = text { w in
            w.raw("m")
            w.tag("t", "v")
            w.beginFields()
            w.field("a", 0.5); w.field("b", -0.000123); w.field("c", 2.0); w.field("d", 1e-7); w.field("e", -1e-9)
            w.field("f", 123.4567891, fractionDigits: 3); w.field("nan", Double.nan); w.field("i", Int64(-42)); w.field("ok", true)
            w.endLine(timestampNanos: 1_764_491_426_123_456_789)
        }
        #expect(line == "m,t=v a=0.5,b=-0.000123,c=2,d=0,e=0,f=123.457,i=-42i,ok=true 1764491426123456789\n")
    }

    @Test func tagValuesAreEscaped() {
        #expect(String(decoding: LineProtocolWriter.escapeTagValue("a b,c=d"), as: UTF8.self) == #"a\ b\,c\=d"#)
    }

    @Test func formatKeyIsReadPerStream() throws {
        let c = try ConfigurationLoader.parse(yaml: "streams: { gyroscope: { format: influx } }", fileName: "t.yaml")
        #expect(c.streams.gyroscope.format == .influx && c.streams.accelerometer.format == .json)
        #expect(ConfigTestSupport.problems("streams: { motion: { format: csv } }").first?.contains("allowed: json, influx") == true)
    }

    /// Runs the agent for 2 s with influx accelerometer (200 Hz, 10 batches/s) and motion (50 Hz,
    /// 5 batches/s) streams on a real broker; returns their lines and every topic published.
    static func publishedInfluxLines() throws -> (accel: [String], motion: [String], topics: Set<String>) {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/influx/#"])
        let config = try AgentProcess.writeConfig("""
        device: { id: influx }
        source: { type: simulator, rate: 200, simulator: { scenario: walking, seed: 1, real_time: true } }
        streams:
          accelerometer: { rate: 200, publish_rate: 10, format: influx }
          gyroscope: { enabled: false }
          magnetometer: { enabled: false }
          motion: { rate: 50, publish_rate: 5, format: influx }
        """)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url, "--duration", "2"])
        #expect(agent.waitForExit(timeout: 10) == 0, "agent log:\n\(agent.log)")
        usleep(200_000)

        let accel = sub.messages(on: "edgemotion/influx/sensor/accelerometer").flatMap { m in
            m.payloadString.split(separator: "\n").map(String.init)
        }
        #expect(accel.count >= 300, "\(accel.count) accelerometer lines in 2 s at 200 Hz")
        let motion = sub.messages(on: "edgemotion/influx/motion").flatMap { $0.payloadString.split(separator: "\n").map(String.init) }
        return (accel, motion, Set(sub.messages.map(\.topic)))
    }

    /// The agent publishing influx payloads on a real broker: one line per sample, UTC nanosecond
    /// timestamps increasing at the stream's rate, topics the shipped Telegraf snippet reads.
    @Test func agentPublishesOneParsableLinePerSampleWithIncreasingNanosecondTimestamps() throws {
        let (accel, motion, published) = try Self.publishedInfluxLines()
        var previous: Int64 = 0
        for line in accel {
            let parts = line.split(separator: " ")
            #expect(parts.count == 3 && parts[0] == "edgemotion_imu,device=influx,sensor=accelerometer,unit=g", "\(line)")
            let ts = Int64(parts.last ?? "") ?? 0
            #expect(ts > previous, "timestamps must increase: \(line)")
            if previous > 0 { #expect(abs(Double(ts - previous) - 5e6) < 2e6, "200 Hz spacing: \(ts - previous) ns") }
            previous = ts
        }
        let now = Int64(Date().timeIntervalSince1970 * 1e9)
        #expect(abs(now - previous) < 10_000_000_000, "timestamps are UTC ns")
        #expect(motion.count >= 60)
        #expect(motion.first?.hasPrefix("edgemotion_motion,device=influx,frame=xArbitraryCorrectedZVertical qw=") == true)

        // The shipped Telegraf snippet (deploy/telegraf/edgemotion.conf) subscribes to these very
        // topics and reads them as line protocol: each of its patterns matches what was published.
        let conf = try String(contentsOf: ConfigTestSupport.packageRoot.appendingPathComponent("deploy/telegraf/edgemotion.conf"), encoding: .utf8)
        #expect(conf.contains("data_format = \"influx\""))
        let block = conf.components(separatedBy: "topics = [").dropFirst().first?.components(separatedBy: "]").first ?? ""
        let patterns = block.split(separator: "\n").compactMap { line -> String? in
            let t = line.trimmingCharacters(in: .whitespaces)
            guard t.hasPrefix("\"") else { return nil }
            return t.split(separator: "\"").first.map(String.init)
        }
        #expect(patterns.count == 2, "topics in the Telegraf snippet: \(patterns)")
        for p in patterns {
            let matched = published.filter { topic in
                let a = p.split(separator: "/"), b = topic.split(separator: "/")
                return a.count == b.count && zip(a, b).allSatisfy { $0 == "+" || $0 == $1 }
            }
            #expect(!matched.isEmpty, "Telegraf pattern \(p) matches none of \(published.sorted())")
        }
    }

    /// `line-protocol-parser` (PyPI) importable by `python3`: the independent parser below.
    static let lineProtocolParserInstalled: Bool = {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", "import line_protocol_parser"]
        python.standardOutput = FileHandle.nullDevice
        python.standardError = FileHandle.nullDevice
        guard (try? python.run()) != nil else { return false }
        python.waitUntilExit()
        return python.terminationStatus == 0
    }()

    /// Every line the agent published, parsed by the independent `line-protocol-parser`.
    @Test(.enabled(if: lineProtocolParserInstalled, "line-protocol-parser not installed for python3 (pip install line-protocol-parser)"))
    func anIndependentParserReadsEveryPublishedLine() throws {
        let (accel, motion, _) = try Self.publishedInfluxLines()
        let file = NSTemporaryDirectory() + "edgemotion-influx-\(UUID().uuidString).lp"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try (accel + motion).joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let script = """
        import sys
        from line_protocol_parser import parse_line
        n = 0
        for line in open(sys.argv[1]):
            p = parse_line(line if line.endswith("\\n") else line + "\\n")
            assert p["measurement"] in ("edgemotion_imu", "edgemotion_motion"), p
            assert p["tags"]["device"] == "influx", p
            assert isinstance(p["time"], int) and p["time"] > 1_600_000_000_000_000_000, p
            if p["measurement"] == "edgemotion_imu":
                assert set(p["fields"]) == {"x", "y", "z", "sample"} and isinstance(p["fields"]["sample"], int), p
            else:
                assert {"qw", "roll", "rest"} <= set(p["fields"]) and isinstance(p["fields"]["rest"], bool), p
            n += 1
        print("OK", n)
        """
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", script, file]
        let pipe = Pipe()
        python.standardOutput = pipe
        python.standardError = pipe
        try python.run()
        python.waitUntilExit()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(python.terminationStatus == 0 && out.hasPrefix("OK \(accel.count + motion.count)"), "\(out)")
    }
}
