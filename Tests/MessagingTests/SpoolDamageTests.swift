import Foundation
import Testing
@testable import Messaging

/// The spool under damage while stopped (a flipped bit) and while running (the file deleted), and
/// a state directory whose parents do not exist yet.
@Suite struct SpoolDamageTests {
    func tempDirectory() -> String {
        NSTemporaryDirectory() + "edgemotion-spool-damage-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Writes `count` unacknowledged events `event-0 …` and returns the byte offset of each record.
    func writeSpool(_ path: String, count: Int) throws -> [Int] {
        var offsets: [Int] = []
        let s = try EventSpool(path: path, fsync: .never)
        for i in 0..<count {
            offsets.append(s.fileBytes)
            _ = try s.append(topic: "dev/d/events/activity", payload: Array("{\"event\":\(i)}".utf8), qos: 1, retain: false)
        }
        return offsets
    }

    func payloads(_ entries: [SpoolEntry]) -> [String] { entries.map { String(decoding: $0.payload, as: UTF8.self) } }

    /// The issue's case: one flipped bit in record 50 of 112. Whichever header byte it hits —
    /// the length (after which the old reader trusted nothing), the CRC or the kind — only that
    /// record is lost: the 61 intact records after it are recovered, in order.
    @Test(arguments: [0, 2, 3, 5, 8])
    func aFlippedBitInRecord50Of112CostsThatRecordOnly(byteInRecord: Int) throws {
        let dir = tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/outbox.spool"
        let offsets = try writeSpool(path, count: 112)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let original = bytes
        bytes[offsets[49] + byteInRecord] ^= 0x10          // record 50 (1-based)
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let s = try EventSpool(path: path, fsync: .never)
        let expected = (0..<112).filter { $0 != 49 }.map { "{\"event\":\($0)}" }
        #expect(payloads(s.recovered) == expected)
        #expect(s.corruptRecords == 1)
        // The damaged file is kept for inspection, byte for byte.
        #expect(s.keptCorruptCopy == path + ".corrupt")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path + ".corrupt"))) == bytes)
        #expect(bytes != original)
        // The spool itself was rewritten clean: reopening finds no damage and the same events.
        _ = s
    }

    @Test func theOutboxReportsRecoveredAndSkippedCountsAfterDamage() throws {
        let dir = tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/outbox.spool"
        let offsets = try writeSpool(path, count: 112)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[offsets[49] + 1] ^= 0x01                     // record 50's length
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let outbox = try Outbox(settings: OutboxSettings(spoolPath: path, spoolFsync: .never))
        let stats = outbox.statistics
        outbox.stop()
        #expect(stats.replayed == 111)
        #expect(stats.spoolCorruptRecords == 1)
        #expect(stats.lastError?.contains("recovered 111") == true)
        #expect(stats.lastError?.contains(".corrupt") == true)
        let again = try EventSpool(path: path, fsync: .never)
        #expect(again.corruptRecords == 0)
        #expect(again.recovered.count == 111)
    }

    @Test func aTornTailAloneKeepsNoCorruptCopy() throws {
        let dir = tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/outbox.spool"
        _ = try writeSpool(path, count: 5)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        #expect(truncate(path, off_t(size - 3)) == 0)
        let s = try EventSpool(path: path, fsync: .never)
        #expect(s.recovered.count == 4)
        #expect(s.corruptRecords == 1)
        #expect(!FileManager.default.fileExists(atPath: path + ".corrupt"))
    }

    /// The issue's case: the spool deleted while the agent runs. The outbox notices (link count
    /// 0), recreates the file with every unacknowledged event and keeps appending to the new one,
    /// so a restart replays everything.
    @Test func aSpoolDeletedWhileRunningIsRecreatedWithEveryUnacknowledgedEvent() throws {
        let dir = tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/outbox.spool"
        do {
            // No broker: nothing is acknowledged, everything must survive.
            let outbox = try Outbox(settings: OutboxSettings(spoolPath: path, spoolFsync: .always))
            for i in 0..<3 { outbox.enqueueEvent(topic: "dev/d/events/activity", payload: Array("e\(i)".utf8)) }
            #expect(eventually { outbox.statistics.spooled == 3 })
            #expect(unlink(path) == 0)
            for i in 3..<5 { outbox.enqueueEvent(topic: "dev/d/events/activity", payload: Array("e\(i)".utf8)) }
            #expect(eventually { outbox.statistics.spooled == 5 })
            #expect(eventually { outbox.statistics.spoolRecreations == 1 })
            #expect(outbox.statistics.lastError?.contains("deleted or replaced") == true)
            outbox.stop()
        }
        let reopened = try EventSpool(path: path, fsync: .never)
        #expect(payloads(reopened.recovered) == (0..<5).map { "e\($0)" })
    }

    /// Deleted while idle (no writes follow): found within about a second by the periodic check.
    @Test func aSpoolDeletedWhileIdleIsRecreatedByThePeriodicCheck() throws {
        let dir = tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/outbox.spool"
        let outbox = try Outbox(settings: OutboxSettings(spoolPath: path, spoolFsync: .always))
        defer { outbox.stop() }
        outbox.enqueueEvent(topic: "dev/d/events/activity", payload: Array("only".utf8))
        #expect(eventually { outbox.statistics.spooled == 1 })
        try FileManager.default.removeItem(atPath: dir)     // the whole state directory
        #expect(eventually(timeout: 5) { FileManager.default.fileExists(atPath: path) })
        #expect(eventually { outbox.statistics.spoolRecreations == 1 })
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let scan = bytes.withUnsafeBytes { SpoolReader.scan($0) }
        #expect(payloads(scan.pending) == ["only"])
    }

    @Test func aSpoolWhoseDirectoryParentsAreMissingCreatesTheWholePathWithMode0750() throws {
        let root = tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/a/b/state/outbox.spool"
        let s = try EventSpool(path: path, fsync: .never)
        _ = try s.append(topic: "t", payload: [1], qos: 1, retain: false)
        for dir in [root, root + "/a", root + "/a/b", root + "/a/b/state"] {
            var st = stat()
            #expect(stat(dir, &st) == 0)
            #expect(st.st_mode & 0o777 == 0o750, "\(dir)")
        }
    }

    @Test func aSpoolThatCannotCreateItsDirectoryFailsWithTheComponentNamed() throws {
        let root = tempDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: root + "/file", contents: Data([1]))
        do {
            _ = try EventSpool(path: root + "/file/state/outbox.spool", fsync: .never)
            Issue.record("opened a spool below a regular file")
        } catch {
            #expect(error.description.contains(root + "/file"))
            #expect(error.description.contains("Not a directory"))
        }
    }
}
