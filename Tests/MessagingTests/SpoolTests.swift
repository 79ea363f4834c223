import Foundation
import Testing
import TestSupport
@testable import Messaging
import Platform

/// The on-disk event spool: replay in order, acknowledgements, damage handling.
@Suite struct SpoolTests {
    func tempPath() -> String {
        NSTemporaryDirectory() + "edgemotion-spool-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).spool"
    }

    @Test func crc32MatchesTheStandardCheckValue() {
        // The CRC-32/ISO-HDLC check value of "123456789".
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
    }

    @Test func unacknowledgedMessagesAreReplayedInOrderAfterReopening() throws {
        let path = tempPath()
        defer { unlink(path) }
        do {
            let s = try EventSpool(path: path, fsync: .always)
            #expect(s.recovered.isEmpty)
            let a = try s.append(topic: "t/activity", payload: Array("a".utf8), qos: 1, retain: false)
            let b = try s.append(topic: "t/activity", payload: Array("b".utf8), qos: 1, retain: false)
            let c = try s.append(topic: "t/pedometer", payload: Array("c".utf8), qos: 1, retain: true)
            #expect(a.id < b.id && b.id < c.id)
            try s.acknowledge(id: b.id)
        }
        let reopened = try EventSpool(path: path, fsync: .never)
        #expect(reopened.recovered.map(\.payload) == [Array("a".utf8), Array("c".utf8)])
        #expect(reopened.recovered.map(\.topic) == ["t/activity", "t/pedometer"])
        #expect(reopened.recovered.last?.retain == true)
        #expect(reopened.corruptRecords == 0)
        // Ids keep increasing across restarts (subscribers may de-duplicate by them).
        let d = try reopened.append(topic: "t/x", payload: [1], qos: 1, retain: false)
        #expect(d.id > reopened.recovered.last!.id)
    }

    @Test func aTornTailRecordIsSkippedAndCountedAndTheIntactOnesReplayed() throws {
        let path = tempPath()
        defer { unlink(path) }
        do {
            let s = try EventSpool(path: path, fsync: .never)
            for i in 0..<5 { _ = try s.append(topic: "t/e", payload: Array("event-\(i)".utf8), qos: 1, retain: false) }
        }
        var size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        #expect(truncate(path, off_t(size - 3)) == 0)   // a crash in the middle of the last write
        do {
            let s = try EventSpool(path: path, fsync: .never)
            #expect(s.corruptRecords == 1)
            #expect(s.recovered.map { String(decoding: $0.payload, as: UTF8.self) } == (0..<4).map { "event-\($0)" })
            // The damaged tail was cut off: appending and reopening gives a clean file.
            _ = try s.append(topic: "t/e", payload: Array("after".utf8), qos: 1, retain: false)
        }
        size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        #expect(size > 8)
        let again = try EventSpool(path: path, fsync: .never)
        #expect(again.corruptRecords == 0)
        #expect(again.recovered.count == 5)
        #expect(again.recovered.last.map { String(decoding: $0.payload, as: UTF8.self) } == "after")
    }

    @Test func aCorruptedRecordInTheMiddleIsSkippedAndTheFollowingOnesKept() throws {
        let path = tempPath()
        defer { unlink(path) }
        do {
            let s = try EventSpool(path: path, fsync: .never)
            for i in 0..<3 { _ = try s.append(topic: "t/e", payload: Array("payload-\(i)".utf8), qos: 1, retain: false) }
        }
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        // Flip a payload byte of the second record ("payload-1").
        let marker = Array("payload-1".utf8)
        let at = (0...(bytes.count - marker.count)).first { Array(bytes[$0..<$0 + marker.count]) == marker }!
        bytes[at + 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let s = try EventSpool(path: path, fsync: .never)
        #expect(s.corruptRecords == 1)
        #expect(s.recovered.map { String(decoding: $0.payload, as: UTF8.self) } == ["payload-0", "payload-2"])
    }

    @Test func aFileWithADamagedHeaderIsMovedAsideAndANewSpoolStarted() throws {
        let path = tempPath()
        defer { unlink(path); unlink(path + ".corrupt") }
        try Data("not a spool at all".utf8).write(to: URL(fileURLWithPath: path))
        do {
            let s = try EventSpool(path: path, fsync: .never)
            #expect(s.corruptRecords == 1)
            #expect(s.recovered.isEmpty)
            #expect(FileManager.default.fileExists(atPath: path + ".corrupt"))
            _ = try s.append(topic: "t/e", payload: [1, 2, 3], qos: 1, retain: false)
        }
        #expect(try EventSpool(path: path, fsync: .never).recovered.count == 1)
    }

    @Test func randomGarbageNeverCrashesTheReader() throws {
        let path = tempPath()
        defer { unlink(path); unlink(path + ".corrupt") }
        // Seeded so a failure reproduces: the seed is in every failure message.
        let seed = SplitMix64.seed(default: 0x5EED_5B01)
        var rng = SplitMix64(state: seed)
        for round in 0..<50 {
            var bytes = SpoolFormat.magic
            let n = Int.random(in: 0..<400, using: &rng)
            for _ in 0..<n { bytes.append(UInt8.random(in: 0...255, using: &rng)) }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let s = try EventSpool(path: path, fsync: .never)
            #expect(s.recovered.count <= n / SpoolFormat.recordHeaderBytes + 1, "seed \(seed) (EDGEMOTION_TEST_SEED), round \(round)")
        }
    }

    @Test func aSecondOpenOfTheSameSpoolIsRefusedWithAHint() throws {
        let path = tempPath()
        defer { unlink(path) }
        let first = try EventSpool(path: path, fsync: .never)
        _ = try first.append(topic: "t/e", payload: [1], qos: 1, retain: false)
        #expect(throws: SpoolError.self) { _ = try EventSpool(path: path, fsync: .never) }
        do { _ = try EventSpool(path: path, fsync: .never) } catch {
            #expect(error.description.contains("own state_directory"))
        }
        _ = first
    }

    @Test func rewriteKeepsOnlyThePendingRecords() throws {
        let path = tempPath()
        defer { unlink(path) }
        var kept: [SpoolEntry] = []
        do {
            let s = try EventSpool(path: path, fsync: .always)
            for i in 0..<100 {
                let e = try s.append(topic: "t/e", payload: [UInt8](repeating: UInt8(i), count: 100), qos: 1, retain: false)
                if i % 10 == 0 { kept.append(e) } else { try s.acknowledge(id: e.id) }
            }
            let before = s.fileBytes
            try s.rewrite(keeping: kept)
            #expect(s.fileBytes < before / 5)
        }
        #expect(try EventSpool(path: path, fsync: .never).recovered == kept)
    }
}
