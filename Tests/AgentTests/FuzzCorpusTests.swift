import Foundation
import Testing
import Dashboard
import EdgeMotion
import Messaging
import MotionCore
@testable import Agent

/// The libFuzzer targets' regression corpora, replayed in the normal suite.
///
/// `scripts/fuzz` runs one target per `Tests/Fuzz/<Name>FuzzTarget.swift` and keeps, per target,
/// the minimised crashing inputs and a small coverage-merged corpus in `Tests/Fuzz/corpus/<target>/`.
/// Each target has a replayer here making the same calls as its fuzz target; every folder must
/// have one, every target must have a folder, and a missing or empty folder fails (a corpus that
/// is not there tests nothing). Adding a target: its FuzzTarget file, a case in scripts/fuzz,
/// its corpus folder, and an entry in `FuzzReplayers.all`.
enum FuzzReplayers {
    /// Target name → the calls its fuzz target makes on one input.
    static let all: [String: @Sendable ([UInt8]) -> Void] = [
        "command": { bytes in
            if case .success(let c) = StreamCommand.parse(bytes) {
                for sourceRate in [200.0, 1000] {
                    if case .success(let s) = c.applied(to: StreamSettings(), sourceRate: sourceRate) {
                        _ = s.samplesPerMessage(sourceRate: sourceRate)
                    }
                }
            }
            _ = MotionEventCommand.parse(bytes)
            if case .success(let m) = MountCommand.parse(bytes) {
                precondition(MountCommand.samplesRange.contains(m.samples))
            }
            _ = CalibrationCommand.parse(bytes)
            _ = AgentCommandReply(bytes)   // cmd/<name>/result, read by `edgemotion events set-level`
            // The calibration page's POST /api/calibration body: the same parser, more actions.
            if case .success(let c) = CalibrationCommand.parse(bytes, actions: CalibrationCommand.dashboardActions) {
                precondition(CalibrationCommand.dashboardActions.contains(c.action) && CalibrationCommand.durationRange.contains(c.duration))
            }
        },
        "config": { bytes in
            if let c = try? ConfigurationLoader.parse(yaml: String(decoding: bytes, as: UTF8.self), fileName: "fuzz.yaml") {
                _ = c.resolvedTopicPrefix
                let m = c.source.mount.resolved(learned: nil)
                precondition(abs(m.inertial.matrix.determinant - 1) < 1e-3 && abs(m.magnetometer.matrix.determinant - 1) < 1e-3)
                precondition(ConfigurationAdvice.warnings(for: c).allSatisfy { !$0.message.isEmpty && !$0.event.isEmpty })
            }
        },
        "query": { bytes in
            for kind in [HistoryQuery.Kind.activity, .pedometer, .recordings] {
                _ = HistoryQuery.parse(kind: kind, payload: bytes, now: 1_796_000_000)
            }
            let envelope = HistoryQuery.envelope(bytes)
            let policy = ReplyTopicPolicy(prefix: "edgemotion/dev-1", template: "edgemotion/{device_id}", allowedPrefix: "clients/")
            _ = policy.problem(envelope.replyTo ?? String(decoding: bytes.prefix(600), as: UTF8.self))
        },
        "spool": { bytes in
            // As SpoolFuzzTarget: an odd first byte gets the real header.
            var input = bytes
            if let first = input.first, first & 1 == 1 { input = Array("EMSPOOL1".utf8) + input.dropFirst() }
            let r = input.withUnsafeBytes { SpoolReader.scan($0) }
            precondition(r.skippedBytes <= input.count && r.pending.count <= r.intactRecords)
        },
        "history": { bytes in
            let dir = NSTemporaryDirectory() + "edgemotion-fuzz-replay-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            _ = FileManager.default.createFile(atPath: dir + "/" + ActivityHistoryStore.fileName, contents: Data(bytes))
            guard let store = try? ActivityHistoryStore(directory: dir) else { return }
            _ = try? store.activities(from: -1e12, to: 1e12, pageSize: 100)
            _ = try? store.pedometer(from: -1e12, to: 1e12, pageSize: 100)
            _ = try? store.pedometerTotals(from: -1e12, to: 1e12)
        },
        "http": { bytes in
            // As HttpFuzzTarget: one raw request to a real HTTPServer (plain, or with basic auth
            // for an odd last byte); the answer is HTTP or nothing, and the server keeps serving.
            let line = bytes.prefix { $0 != 10 && $0 != 13 }.prefix(300)
            _ = try? HTTPListenAddress(parsing: String(decoding: line, as: UTF8.self))
            let server = HTTPFuzzServers.shared[Int((bytes.last ?? 0) & 1)]
            let reply = HTTPFuzzServers.exchange(server.port, bytes)
            precondition(reply.isEmpty || reply.starts(with: Array("HTTP/1.".utf8)), "not an HTTP response")
            let check = HTTPFuzzServers.exchange(HTTPFuzzServers.shared[0].port, Array("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
            precondition(check.starts(with: Array("HTTP/1.1 200".utf8)), "the server no longer answers a plain GET")
        },
        "mount-file": { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            // As MountFileFuzzTarget: as read, and resealed with a valid checksum.
            var body = ""
            for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0)
            where !line.drop(while: { $0 == " " }).hasPrefix("checksum") {
                body += line + "\n"
            }
            for candidate in [text, MountFile.seal(body)] {
                if let m = try? MountFile.decode(candidate, source: "fuzz.txt") {
                    let d = m.matrix.transposed * m.matrix - .identity
                    precondition([d.a11, d.a12, d.a13, d.a21, d.a22, d.a23, d.a31, d.a32, d.a33].allSatisfy { abs($0) <= 1e-5 })
                    precondition(abs(m.matrix.determinant - 1) <= 1e-5)
                }
            }
        },
        "time-option": { bytes in
            TimeOptionFuzzCheck.check(String(decoding: bytes, as: UTF8.self))
        },
        "zero-file": { bytes in
            ZeroFileFuzzCheck.check(String(decoding: bytes, as: UTF8.self))
        },
        "activity-config": { bytes in
            ActivityConfigFuzzCheck.check(bytes)
        },
        "csv-recording": { bytes in
            CsvRecordingFuzzCheck.check(bytes)
        },
        "calibration-file": { bytes in
            CalibrationFileFuzzCheck.check(String(decoding: bytes, as: UTF8.self))
        },
        "recording": { bytes in
            if let reader = try? RecordingFileReader(bytes: bytes) {
                while reader.next() != nil {}
                _ = (reader.damagedBlocks, reader.tornTail, reader.header.rateHz)
            }
        },
    ]
}

@Suite("Fuzz regression corpus")
struct FuzzCorpusTests {
    static let fuzzDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")
    static let corpusDirectory = fuzzDirectory.appendingPathComponent("corpus")

    static func entries(_ url: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    @Test(arguments: FuzzReplayers.all.keys.sorted())
    func fuzzRegressionCorpusParsesWithoutCrashing(target: String) throws {
        let folder = Self.corpusDirectory.appendingPathComponent(target)
        let files = Self.entries(folder)
        try #require(!files.isEmpty, "Tests/Fuzz/corpus/\(target) is missing or empty: run scripts/fuzz \(target)")
        let replay = try #require(FuzzReplayers.all[target])
        for f in files {
            let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(f)))
            replay(bytes)
        }
    }

    @Test func everyFuzzTargetHasACorpusAndAReplayerAndEveryCorpusATarget() {
        let targets = Self.entries(Self.fuzzDirectory).filter { $0.hasSuffix("FuzzTarget.swift") }.map { name -> String in
            // CamelCase file, kebab-case target: MountFileFuzzTarget.swift is `mount-file`.
            var target = ""
            for c in name.dropLast("FuzzTarget.swift".count) {
                if c.isUppercase, !target.isEmpty { target += "-" }
                target += c.lowercased()
            }
            return target
        }
        #expect(!targets.isEmpty)
        #expect(Set(targets) == Set(FuzzReplayers.all.keys), "fuzz targets \(targets) vs replayers \(FuzzReplayers.all.keys.sorted())")
        #expect(Set(Self.entries(Self.corpusDirectory)) == Set(FuzzReplayers.all.keys), "corpus folders vs replayers")
    }

    /// The inputs that once crashed the agent (issue 14's, the fuzzers' finds) are in the corpus by name, so the replay covers them for sure.
    @Test func theCorpusHoldsTheInputsThatOnceCrashedTheAgent() {
        for (target, name) in [("command", "issue14-huge-batch.json"), ("recording", "issue14-sample-count-ffffffff.emr"),
                               ("config", "issue14-deep-flow.yaml"), ("query", "issue14-nul-reply-to.json"),
                               // RFC3339.parseNanos' fraction past Int64 (2262-04-11T23:47:16.854787507Z) trapped.
                               ("time-option", "crash-7fdf8ef6c54ad548d7ce75b7ac15f808d1b8cecf")] {
            #expect(Self.entries(Self.corpusDirectory.appendingPathComponent(target)).contains(name), "\(target)/\(name)")
        }
    }
}
