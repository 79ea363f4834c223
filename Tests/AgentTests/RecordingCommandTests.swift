import Foundation
import Testing
import EdgeMotion
import Messaging
import TestSupport
@testable import Agent
import Platform

/// `edgemotion record`, `recordings`, `replay` as users run them: the real binary.
@Suite("Recording commands", .serialized, .ownThread)
struct RecordingCommandTests {
    func temporaryDirectory() throws -> String {
        let dir = NSTemporaryDirectory() + "edgemotion-reccmd-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Runs the binary to completion; returns status and combined output.
    func edgemotion(_ arguments: [String], timeout: Double = 30) throws -> (Int32?, String) {
        let p = try AgentProcess(arguments)
        let status = p.waitForExit(timeout: timeout)
        return (status, p.log)
    }

    @Test func recordListExportAndReplayRoundTripThroughTheWholePipeline() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, out) = try edgemotion(["record", "--duration", "3s", "--output", dir, "--device-id", "rec"])
        #expect(status == 0, "\(out)")
        #expect(out.contains("MB per hour at 200.00 Hz"), "\(out)")
        let files = RecordingStore(directory: dir).list()
        let file = try #require(files.first, "no file in \(dir): \(out)")
        #expect(files.count == 1 && !file.tornTail)
        #expect(file.samples >= 500 && file.samples <= 700, "\(file.samples) samples in 3 s at 200 Hz")

        let (listStatus, listing) = try edgemotion(["recordings", "list", "--dir", dir])
        #expect(listStatus == 0 && listing.contains(file.name) && listing.contains("\t\(file.samples)\t200.00\t") && listing.contains("ok"), "\(listing)")

        // Export one second in the middle, then all of it.
        let csv = dir + "/all.csv"
        #expect(try edgemotion(["recordings", "export", "--dir", dir, "--output", csv]).0 == 0)
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "t_s,gx,gy,gz,ax,ay,az,mx,my,mz")
        #expect(lines.count == file.samples + 1)
        #expect(lines[1].hasPrefix("0.000000,") && lines[2].hasPrefix("0.005000,"), "\(lines[1]) / \(lines[2])")
        let from = file.firstUTCNanos! + 1_000_000_000, to = from + 999_000_000
        let part = dir + "/part.csv"
        let fromText = String(format: "%.3f", Double(from) / 1e9), toText = String(format: "%.3f", Double(to) / 1e9)
        #expect(try edgemotion(["recordings", "export", "--dir", dir, "--from", fromText, "--to", toText, "--output", part]).0 == 0)
        let partLines = try String(contentsOfFile: part, encoding: .utf8).split(separator: "\n")
        #expect(abs(partLines.count - 1 - 200) <= 2, "one second at 200 Hz: \(partLines.count - 1) rows")

        // Replay the .emr and the CSV through the agent on a broker.
        let broker = try MosquittoBroker.start()
        for (id, path) in [("replay-emr", file.path), ("replay-csv", csv)] {
            let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/\(id)/#"])
            let (s, log) = try edgemotion(["replay", path, "--speed", "max", "--broker", broker.url, "--device-id", id])
            #expect(s == 0 && log.contains("end of recording"), "\(log)")
            usleep(300_000)
            let batches = sub.messages(on: "edgemotion/\(id)/sensor/accelerometer").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any]
            }
            let published = batches.reduce(0) { $0 + ($1["n"] as? Int ?? 0) }
            // Default accelerometer stream: 100 Hz from a 200 Hz source, i.e. every other sample.
            #expect(abs(published - file.samples / 2) <= 1, "\(id): \(published) of \(file.samples) samples published")
            #expect(!sub.messages(on: "edgemotion/\(id)/motion").isEmpty, "\(id): fusion ran")
        }
    }

    @Test func aRecordingKilledMidWriteIsReadableUpToItsLastWholeBlock() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let p = try AgentProcess(["record", "--output", dir, "--duration", "60"])
        usleep(2_600_000)
        p.signal(SIGKILL)
        _ = p.waitForExit(timeout: 5)
        let files = RecordingStore(directory: dir).files()
        let path = try #require(files.first, "no file: \(p.log)")
        let reader = try RecordingFileReader(path: path)
        let samples = reader.readAll()
        // Blocks of 200 go out whole: after ~2.4 s of recording, at least 2 complete blocks.
        #expect(samples.count >= 400 && samples.count % 200 == 0, "\(samples.count) samples")
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $1.sequence == $0.sequence + 1 })
    }

    @Test func runRecordsWhenTheRecorderIsEnabled() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try MosquittoBroker.start()
        let config = try AgentProcess.writeConfig("""
        device: { id: recrun }
        streams: { accelerometer: { rate: 0 } }
        recorder: { enabled: true, directory: \(dir) }
        """)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let (status, log) = try edgemotion(["run", "--config", config, "--broker", broker.url, "--duration", "2"])
        #expect(status == 0, "\(log)")
        let files = RecordingStore(directory: dir).list()
        #expect(files.count == 1 && (files.first?.samples ?? 0) >= 300, "\(files.map { ($0.name, $0.samples) })\n\(log)")
        #expect(files.first?.rateHz == 200)
    }

    @Test func recorderConfigIsCheckedAndDocumented() {
        #expect(ConfigTestSupport.problems("recorder: { enabled: true }\nstreams: { accelerometer: { enabled: false } }")
            .first?.contains("recorder.enabled") == true)
        #expect(ConfigTestSupport.problems("recorder: { max_file_mb: 100, max_total_mb: 50 }").first?.contains("below max_file_mb") == true)
        #expect(OptionScanner.duration("20m") == 1200 && OptionScanner.duration("2h") == 7200 && OptionScanner.duration("90") == 90)
        #expect(OptionScanner.duration("-1") == nil && OptionScanner.duration("x") == nil)
        #expect(TimeOption.utcNanos("2026-11-30T09:15:00Z") == 1_796_030_100_000_000_000)
        #expect(RFC3339.format(unixNanos: 1_796_030_100_123_999_999) == "2026-11-30T09:15:00.123Z")
    }
}
