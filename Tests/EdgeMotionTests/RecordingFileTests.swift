import Foundation
import Testing
import MotionCore
@testable import EdgeMotion

@Suite("Recording files")
struct RecordingFileTests {
    func temporaryDirectory() throws -> String {
        let dir = NSTemporaryDirectory() + "edgemotion-rec-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// 1000 samples at 200 Hz with a 6 s pause (longer than a block's 4.29 s span), a sequence
    /// gap, a sample without magnetometer and flags set.
    func samples() -> [IMUSample] {
        var out: [IMUSample] = []
        var t: UInt64 = 5_000_000_000
        var seq: UInt64 = 1000
        for i in 0..<1000 {
            if i == 500 { t += 6_000_000_000 }
            if i == 700 { seq += 17 }
            let x = Double(i)
            var contents: IMUSample.Contents = .all
            if i == 42 { contents = .inertial }
            var s = IMUSample(timestampNanos: t, sequence: seq,
                              specificForce: Vector3(0.1 * x.truncatingRemainder(dividingBy: 7), -9.80665, 0.001 * x),
                              rotationRate: Vector3(0.01, -0.02 * x, 1e-5), magneticField: Vector3(20.5, -3.25, -43.0 + x * 1e-3),
                              contents: contents, flags: i == 700 ? [.discontinuity, .hardwareTimestamp] : [.hardwareTimestamp])
            if i == 42 { s.magneticField = .zero }
            out.append(s)
            t += 5_000_000
            seq += 1
        }
        return out
    }

    func header() -> RecordingHeader {
        RecordingHeader(deviceID: "bench", source: "simulator:walking", rateHz: 200, sensors: .all,
                        utcOffsetNanos: 1_700_000_000_000_000_000, createdUTCNanos: 1_700_000_005_000_000_000)
    }

    func write(_ list: [IMUSample], to path: String) throws {
        let w = try RecordingWriter(path: path, header: header())
        for s in list { try w.append(s) }
        try w.close()
    }

    func expectSame(_ a: IMUSample, _ b: IMUSample) {
        #expect(a.timestampNanos == b.timestampNanos && a.sequence == b.sequence)
        #expect(a.contents == b.contents && a.flags == b.flags)
        for (u, v) in [(a.specificForce, b.specificForce), (a.rotationRate, b.rotationRate), (a.magneticField, b.magneticField)] {
            #expect(Float(u.x) == Float(v.x) && Float(u.y) == Float(v.y) && Float(u.z) == Float(v.z))
        }
    }

    @Test func samplesRoundTripExactlyAtFloat32PrecisionWithTimestampsSequencesAndFlags() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/a.emr"
        let original = samples()
        try write(original, to: path)
        let reader = try RecordingFileReader(path: path)
        #expect(reader.header == header())
        #expect(reader.header.rateHz == 200)
        let back = reader.readAll()
        #expect(back.count == original.count)
        for (a, b) in zip(original, back) { expectSame(a, b) }
        #expect(!reader.tornTail)
        // 1000 samples: 5 blocks of 200, plus one split at the 6 s pause.
        #expect(reader.blocksRead == 6)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        #expect(size < 1000 * 44 + 2000, "\(size) bytes for 1000 samples")
    }

    @Test func aTruncatedTailIsDetectedAndEveryIntactBlockIsStillRead() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/a.emr"
        try write(samples(), to: path)
        let full = try Data(contentsOf: URL(fileURLWithPath: path))
        for cut in [1, 7, 16, 100, 8000] {
            let torn = dir + "/torn-\(cut).emr"
            try full.prefix(full.count - cut).write(to: URL(fileURLWithPath: torn))
            let reader = try RecordingFileReader(path: torn)
            let back = reader.readAll()
            #expect(reader.tornTail, "cut \(cut)")
            #expect(back.count < 1000 && back.count >= 1000 - 200 * ((cut / 8000) + 1) - 100, "cut \(cut): \(back.count)")
            #expect(back.count % 100 == 0 || back.count == 500 || back.count == 800, "whole blocks only: \(back.count)")
            for (a, b) in zip(samples(), back) { expectSame(a, b) }
        }
    }

    @Test func aFlippedByteInsideABlockFailsItsCRC() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/a.emr"
        try write(samples(), to: path)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count - 50] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
        let reader = try RecordingFileReader(path: path)
        let back = reader.readAll()
        #expect(reader.tornTail)
        #expect(back.count == 900, "the last block (100 samples after the split at the pause) is dropped, got \(back.count)")
        #expect(reader.ignoredBytes > 0)
    }

    @Test func aDamagedHeaderOrForeignFileIsRefusedWithAReason() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let csv = dir + "/x.csv"
        try "t_s,ax,ay,az\n0,0,0,9.8\n".write(toFile: csv, atomically: true, encoding: .utf8)
        #expect(throws: RecordingError.self) { try RecordingFileReader(path: csv) }
        let path = dir + "/a.emr"
        try write(samples(), to: path)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[20] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        do {
            _ = try RecordingFileReader(path: path)
            Issue.record("a damaged header was accepted")
        } catch {
            #expect(error.description.contains("checksum"))
        }
    }

    @Test func recorderRotatesBySizeAndRemovesOldestFilesFirstWithinTheTotalLimit() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let limits = RecordingLimits(maximumFileBytes: 20_000, maximumFileSeconds: 3600, maximumTotalBytes: 60_000, maximumAgeSeconds: 0)
        let store = RecordingStore(directory: dir + "/recordings", limits: limits)
        let h = header()
        let recorder = FileSensorRecorder(store: store, clock: WallClockMapping(offsetNanos: 0)) { _ in h }
        var all: [IMUSample] = []
        for round in 0..<20 {
            let batch = samples().prefix(200).map { s -> IMUSample in
                var s = s
                s.timestampNanos += UInt64(round) * 2_000_000_000
                s.sequence += UInt64(round) * 1000
                return s
            }
            all += batch
            recorder.pipeline(didProduce: batch.span, of: .accelerometer, interval: 0.005)
            recorder.pipeline(didProduce: batch.span, of: .gyroscope, interval: 0.005)  // ignored: another stream
        }
        recorder.pipeline(didEnd: .stopped)
        #expect(recorder.status.error == nil)
        #expect(recorder.status.samples == 4000)
        let files = store.list()
        let total = files.reduce(0) { $0 + $1.bytes }
        // A file is rotated at the first batch after it reached 20 000 bytes: 3 batches per file.
        #expect(recorder.status.files == 7, "\(recorder.status.files) files")
        #expect(files.count < recorder.status.files, "old files were removed")
        #expect(total <= 60_000 + 20_000 + 9000, "total \(total)")
        // What remains is the newest data, contiguous up to the last sample.
        let remaining = files.flatMap { (try? RecordingFileReader(path: $0.path).readAll()) ?? [] }
        #expect(remaining.last?.sequence == all.last?.sequence)
        #expect(remaining.first!.sequence > all.first!.sequence)
        #expect(zip(remaining, remaining.dropFirst()).allSatisfy { $0.timestampNanos < $1.timestampNanos })
    }

    /// Age is the recorded samples' own: a file ends at its last sample's UTC time (names carry
    /// each file's first-sample UTC time) and `now` is the newest sample's time. File mtimes and
    /// the live clock play no part, so a wall-clock step (+30 days) cannot delete a fresh recording.
    @Test func filesOlderThanTheAgeLimitAreRemovedButNeverTheOneBeingWritten() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = RecordingStore(directory: dir, limits: RecordingLimits(maximumAgeSeconds: 3600))
        let t0: Int64 = 1_000_000_000_000_000_000          // 2001-09-09T01:46:40Z
        let minute: Int64 = 60_000_000_000
        // Ten samples at 200 Hz, the first at monotonic 5 s: mapped so the first is at `start`.
        func record(at start: Int64, to path: String) throws {
            let w = try RecordingWriter(path: path, header: RecordingHeader(
                deviceID: "bench", source: "simulator:walking", rateHz: 200, sensors: .all,
                utcOffsetNanos: start - 5_000_000_000, createdUTCNanos: start))
            for s in samples().prefix(10) { try w.append(s) }
            try w.close()
        }
        let a = store.newFilePath(utcNanos: t0)
        try record(at: t0, to: a)
        let b = store.newFilePath(utcNanos: t0 + 10 * minute)
        #expect(a != b && a < b, "names never collide and sort by time")
        try record(at: t0 + 10 * minute, to: b)
        // An mtime far in the future (as after a +30-day clock step) changes nothing.
        var times = [timeval(tv_sec: time(nil) + 30 * 86_400, tv_usec: 0), timeval(tv_sec: time(nil) + 30 * 86_400, tv_usec: 0)]
        #expect(utimes(a, &times) == 0)
        // a's last sample is 45 ms after t0: fresh 20 min in, stale 2 h 10 min in.
        #expect(store.enforceLimits(nowUTCNanos: t0 + 20 * minute, keeping: b).isEmpty)
        #expect(store.enforceLimits(nowUTCNanos: t0 + 130 * minute, keeping: b) == [a])
        #expect(store.files() == [b])
    }

    @Test func aFileNameGivesItsFirstSampleTime() {
        #expect(RecordingStore.startUTCNanos(ofFile: "/x/rec-20010909T014640Z-000123.emr") == 1_000_000_000_000_123_000)
        #expect(RecordingStore.startUTCNanos(ofFile: "/x/rec-garbage.emr") == nil)
    }
}
