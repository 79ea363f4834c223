import Foundation
import Testing
import MotionCore
import TestSupport
@testable import EdgeMotion

/// Issue 14 item 2: nothing the reader takes from disk is trusted. Files are built by hand
/// (`HandBuiltRecording`, from the format's description) and damaged field by field.
@Suite("Hostile input: damaged recording files")
struct DamagedRecordingTests {
    func temporaryDirectory() throws -> String {
        let dir = NSTemporaryDirectory() + "edgemotion-damaged-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Three blocks of 10 samples (sequences 0…9, 100…109, 200…209), the middle one built by
    /// `middle` (which may damage it).
    func threeBlocks(version: UInt16 = 2, middle: (inout HandBuiltRecording) -> Void) -> HandBuiltRecording {
        var r = HandBuiltRecording(version: version)
        r.appendBlock(firstTimestampNanos: 1_000_000_000, firstSequence: 0, count: 10)
        middle(&r)
        r.appendBlock(firstTimestampNanos: 3_000_000_000, firstSequence: 200, count: 10)
        return r
    }

    func read(_ r: HandBuiltRecording) throws -> (RecordingFileReader, [IMUSample]) {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try r.write(to: dir + "/r.emr")
        let reader = try RecordingFileReader(path: dir + "/r.emr")
        return (reader, reader.readAll())
    }

    @Test func theTestsOwnCRCIsTheStandardOne() {
        #expect(HandBuiltRecording.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func anIntactHandBuiltFileReadsEverySample() throws {
        let (reader, samples) = try read(threeBlocks { $0.appendBlock(firstTimestampNanos: 2_000_000_000, firstSequence: 100, count: 10) })
        #expect(samples.map(\.sequence) == Array(0..<10) + Array(100..<110) + Array(200..<210))
        #expect(samples.allSatisfy { Float($0.specificForce.x) == Float($0.sequence) && Float($0.specificForce.z) == 9.80665 })
        #expect(!reader.isDamaged && reader.blocksRead == 3 && reader.version == 2)
    }

    /// The crash of the issue: sample_count 0xffffffff, or one more than the payload holds, with a
    /// CRC that matches what is written (version 2 covers the count, so build a matching one).
    @Test(arguments: [UInt32.max, 11, 9, 0, 1 << 31] as [UInt32])
    func aBlockWhoseSampleCountDisagreesWithItsPayloadIsSkippedAndReported(count: UInt32) throws {
        for crcMatches in [true, false] {
            let r = threeBlocks { r in
                if crcMatches {
                    r.appendBlock(firstTimestampNanos: 2_000_000_000, firstSequence: 100, count: 10, sampleCountField: count)
                } else {
                    // The count changed after the CRC was computed: the CRC must catch it.
                    var good = HandBuiltRecording(version: 2)
                    good.appendBlock(firstTimestampNanos: 2_000_000_000, firstSequence: 100, count: 10)
                    let crc = good.bytes[(good.blockOffsets[0] + 12)..<(good.blockOffsets[0] + 16)].enumerated()
                        .reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
                    r.appendBlock(firstTimestampNanos: 2_000_000_000, firstSequence: 100, count: 10, sampleCountField: count, crcField: crc)
                }
            }
            let (reader, samples) = try read(r)
            #expect(samples.map(\.sequence) == Array(0..<10) + Array(200..<210), "count \(count), crc matches \(crcMatches)")
            #expect(reader.damagedBlocks == 1 && !reader.tornTail)
            #expect(reader.ignoredBytes == 16 + 16 + 10 * 19)
        }
    }

    @Test(arguments: [UInt32.max, 0, 15, 207, 205] as [UInt32])  // the true length is 16 + 10 × 19 = 206
    func aBlockWhosePayloadLengthIsWrongIsSkipped(length: UInt32) throws {
        let (reader, samples) = try read(threeBlocks {
            $0.appendBlock(firstTimestampNanos: 2_000_000_000, firstSequence: 100, count: 10, payloadLengthField: length)
        })
        #expect(samples.map(\.sequence) == Array(0..<10) + Array(200..<210), "length \(length)")
        #expect(reader.damagedBlocks == 1)
    }

    @Test func theWriterCoversPayloadLengthAndSampleCountByTheBlockCRC() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let w = try RecordingWriter(path: dir + "/w.emr", header: RecordingHeader(entries: [("rate_hz", "200")]))
        for i in 0..<5 {
            try w.append(IMUSample(timestampNanos: 1_000_000_000 + UInt64(i) * 5_000_000, sequence: UInt64(i),
                                   specificForce: Vector3(0, 0, 9.80665), contents: .accelerometer))
        }
        try w.close()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/w.emr")))
        #expect(bytes[8] == 2 && bytes[9] == 0, "format version 2")
        let headerLength = Int(bytes[12]) | Int(bytes[13]) << 8 | Int(bytes[14]) << 16 | Int(bytes[15]) << 24
        let block = 16 + headerLength + 4
        let fields = Array(bytes[(block + 4)..<(block + 12)])
        let payload = Array(bytes[(block + 16)...])
        let stored = bytes[(block + 12)..<(block + 16)].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
        #expect(stored == HandBuiltRecording.crc32(fields + payload))
        #expect(fields[4] == 5 && payload.count == 16 + 5 * 19)
    }

    @Test func aVersionOneFileIsStillReadAndItsUncoveredCountIsCheckedByItsPayload() throws {
        let good = threeBlocks(version: 1) { $0.appendBlock(firstTimestampNanos: 2_000_000_000, firstSequence: 100, count: 10) }
        let (reader, samples) = try read(good)
        #expect(reader.version == 1 && samples.count == 30 && !reader.isDamaged)
        // Version 1's CRC does not cover sample_count: 0xffffffff passes the CRC but not the walk.
        let bad = threeBlocks(version: 1) {
            $0.appendBlock(firstTimestampNanos: 2_000_000_000, firstSequence: 100, count: 10, sampleCountField: .max)
        }
        let (badReader, badSamples) = try read(bad)
        #expect(badSamples.map(\.sequence) == Array(0..<10) + Array(200..<210))
        #expect(badReader.damagedBlocks == 1)
    }

    @Test func garbageBetweenBlocksAndAFlippedPayloadByteAreSkippedAndTheRestRead() throws {
        let r = threeBlocks { $0.appendBlock(firstTimestampNanos: 2_000_000_000, firstSequence: 100, count: 10) }
        var bytes = r.bytes
        bytes[r.blockOffsets[1] + 16 + 20] ^= 0x40  // inside the middle block's first sample
        // A fake block signature in garbage before the last block must not be trusted either.
        let garbage: [UInt8] = [0x45, 0x4D, 0x42, 0x4B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4, 5]
        bytes.insert(contentsOf: garbage, at: r.blockOffsets[2])
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/g.emr"))
        let reader = try RecordingFileReader(path: dir + "/g.emr")
        let samples = reader.readAll()
        #expect(samples.map(\.sequence) == Array(0..<10) + Array(200..<210))
        #expect(reader.damagedBlocks == 1, "the flipped block and the garbage after it are one skipped stretch")
        #expect(!reader.tornTail)
    }

    @Test func aDamagedFileIsListedWithItsDamageAndQueriesReadTheIntactBlocks() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try threeBlocks { $0.appendBlock(firstTimestampNanos: 2_000_000_000, firstSequence: 100, count: 10, sampleCountField: .max) }
            .write(to: dir + "/rec-20250101T000000Z-000000.emr")
        try Data("EDGEMREC garbage".utf8).write(to: URL(fileURLWithPath: dir + "/rec-20250101T000001Z-000000.emr"))
        let store = RecordingStore(directory: dir)
        let files = store.list()
        #expect(files.map(\.damagedBlocks) == [1, 0])
        #expect(files.map(\.unreadable) == [false, true])
        #expect(files.first?.samples == 20)
        let page = RecordingCatalog(store: store).samples(fromUTCNanos: 0, toUTCNanos: .max, skip: 0, limit: 100)
        #expect(page.samples.map(\.sample.sequence) == Array(0..<10) + Array(200..<210))
    }

    @Test func aDirectoryOrFIFOGivenAsARecordingIsRefusedWithoutBlocking() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: RecordingError.self) { try RecordingFileReader(path: dir) }
        #expect(mkfifo(dir + "/fifo.emr", 0o600) == 0)
        do {
            _ = try RecordingFileReader(path: dir + "/fifo.emr")
            Issue.record("a FIFO was read as a recording")
        } catch {
            #expect(error.description.contains("not a regular file"))
        }
    }
}
