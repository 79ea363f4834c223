import Foundation
import Testing
import EdgeMotion
import Messaging
import TestSupport
@testable import Agent

/// Issue 14 item 2 as users meet it: `recordings list/export` (the real binary) and
/// `query/recordings` over a directory holding hand-damaged files.
@Suite("Hostile input: damaged recordings in commands and queries", .serialized, .ownThread)
struct DamagedRecordingCommandTests {
    /// A directory with: a file whose middle block claims 0xffffffff samples (sequences 0…9 and
    /// 200…209 intact), a file with a damaged header, and an intact file (sequences 300…309).
    func damagedDirectory() throws -> String {
        let dir = NSTemporaryDirectory() + "edgemotion-damaged-cmd-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var bad = HandBuiltRecording()
        bad.appendBlock(firstTimestampNanos: 1_764_460_800_000_000_000, firstSequence: 0, count: 10)
        bad.appendBlock(firstTimestampNanos: 1_764_460_801_000_000_000, firstSequence: 100, count: 10, sampleCountField: .max)
        bad.appendBlock(firstTimestampNanos: 1_764_460_802_000_000_000, firstSequence: 200, count: 10)
        try bad.write(to: dir + "/rec-20251130T000000Z-000000.emr")
        var header = HandBuiltRecording().bytes
        header[20] ^= 0xFF
        try Data(header).write(to: URL(fileURLWithPath: dir + "/rec-20251130T000001Z-000000.emr"))
        var good = HandBuiltRecording()
        good.appendBlock(firstTimestampNanos: 1_764_460_803_000_000_000, firstSequence: 300, count: 10)
        try good.write(to: dir + "/rec-20251130T000003Z-000000.emr")
        return dir
    }

    func edgemotion(_ arguments: [String]) throws -> (Int32?, String) {
        let p = try AgentProcess(arguments)
        return (p.waitForExit(timeout: 30), p.log)
    }

    @Test func listShowsEachFilesDamageWithoutCrashing() throws {
        let dir = try damagedDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, out) = try edgemotion(["recordings", "list", "--dir", dir])
        #expect(status == 0, "\(out)")
        let lines = out.split(separator: "\n").filter { $0.hasPrefix("rec-") }
        #expect(lines.count == 3, "\(out)")
        let first = lines.first?.split(separator: "\t").map(String.init) ?? []
        #expect(first.count == 8 && first[4] == "20" && first[7] == "1 damaged block", "20 intact samples: \(out)")
        #expect(lines.dropFirst().first?.hasSuffix("unreadable") == true, "\(out)")
        #expect(lines.last?.hasSuffix("\tok") == true, "\(out)")
    }

    @Test func exportWritesOnlyIntactSamplesAndSaysWhatWasSkipped() throws {
        let dir = try damagedDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let csv = dir + "/out.csv"
        let (status, out) = try edgemotion(["recordings", "export", "--dir", dir, "--output", csv])
        #expect(status == 0, "\(out)")
        #expect(out.contains("1 damaged block(s) skipped"), "\(out)")
        #expect(out.contains("checksum") && out.contains("skipped"), "the unreadable file is named: \(out)")
        #expect(out.contains("exported 30 samples"), "\(out)")
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").dropFirst()
        // ax is the sequence number: 0…9, 200…209, 300…309 and nothing else (no garbage rows).
        let ax = rows.map { Double($0.split(separator: ",", omittingEmptySubsequences: false)[4]) ?? -1 }
        #expect(ax == (Array(0..<10) + Array(200..<210) + Array(300..<310)).map(Double.init), "\(rows.prefix(3))")
    }

    @Test func aRecordingsQueryIsAnsweredFromTheIntactBlocks() throws {
        let dir = try damagedDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try MosquittoBroker.start()
        var options = MQTTConnectionOptions(address: try MQTTBrokerAddress(url: broker.url), clientID: "agent-damaged")
        options.protocolVersion = .v311
        let client = try MQTTClient(options: options)
        let responder = HistoryQueryResponder(client: client, topics: try TopicLayout(prefix: "edgemotion/r"), source: .recordings(RecordingCatalog(store: RecordingStore(directory: dir))))
        client.onMessage = { m in responder.handle(m) }
        try responder.subscribe()
        try client.start()
        defer { client.disconnect(timeout: .seconds(1)) }
        #expect(client.waitUntilConnected(timeout: .seconds(5)))
        let sub = try TestSubscriber(url: broker.url, patterns: ["dash/#"])
        for (mode, topic) in [("files", "dash/f"), ("samples", "dash/s")] {
            try sub.client.publish(topic: "edgemotion/r/query/recordings",
                                   string: #"{"from":1764460700,"to":1764460900,"mode":"\#(mode)","reply_to":"\#(topic)"}"#, qos: 1)
        }
        let files = try #require(sub.waitFor(count: 1, topic: "dash/f").first?.payloadString)
        #expect(files.contains(#""damaged_blocks":1"#) && files.contains(#""damaged_blocks":0"#), "\(files)")
        let samples = try #require(sub.waitFor(count: 1, topic: "dash/s").first)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(samples.payload)) as? [String: Any])
        let seqs = (body["items"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array(0..<10) + Array(200..<210) + Array(300..<310), "\(body)")
    }
}
