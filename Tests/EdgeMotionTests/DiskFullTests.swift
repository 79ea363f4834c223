import Foundation
import Testing
@testable import EdgeMotion
import MotionCore
import TestSupport

/// The case: a full disk, for real (a small tmpfs filled to ENOSPC). Activity-history
/// writes refused while it is full are kept and written once space returns (before: 2 of 4
/// changes were missing afterwards), and the recorder resumes by itself (before: it never did).
@Suite(.serialized, .enabled(if: SmallFileSystem.isAvailable, "needs root to mount a small tmpfs"), .ownThread)
struct DiskFullTests {
    static func change(_ i: Int, start: Double) -> MotionActivity {
        MotionActivity(primary: i % 2 == 0 ? .walking : .stationary, stoppedInVehicle: false,
                       confidence: .high, startDate: start, previousDuration: Double(i))
    }

    @Test func historyChangesRefusedByAFullDiskAreWrittenWhenSpaceReturns() throws {
        let fs = try SmallFileSystem(kilobytes: 1024)
        defer { fs.unmount() }
        let store = try ActivityHistoryStore(directory: fs.path + "/state")
        let t0 = 1_764_600_000.0
        try store.record(Self.change(0, start: t0), utcStart: t0)
        fs.fill()
        var refused = 0
        for i in 1..<4 {
            do { try store.record(Self.change(i, start: t0 + Double(i) * 60), utcStart: t0 + Double(i) * 60) } catch {
                #expect(error.kind == .full, "\(error)")
                refused += 1
            }
        }
        #expect(refused > 0, "the disk was full")
        #expect(store.pendingWrites == refused)
        #expect(store.writeProblem != nil)
        #expect(store.retryPending() == refused, "still full: nothing written")

        fs.makeRoom()
        #expect(store.retryPending() == 0)
        #expect(store.pendingWrites == 0)
        #expect(store.writeProblem == nil)
        let starts = try store.activities(from: t0 - 1, to: t0 + 1000).items.map(\.activity.startDate)
        #expect(starts == [t0, t0 + 60, t0 + 120, t0 + 180], "all 4 changes, in order")
        #expect(store.discardedWrites == 0)
        #expect(try store.integrityCheck() == "ok")
    }

    func batch(_ round: Int) -> [IMUSample] {
        (0..<200).map { i in
            IMUSample(timestampNanos: UInt64(round * 200 + i) * 5_000_000, sequence: UInt64(round * 200 + i),
                      specificForce: Vector3(0, 0, 9.81), rotationRate: Vector3(0, 0, 0), magneticField: Vector3(20, 0, -40),
                      contents: .all, flags: [])
        }
    }

    @Test func theRecorderPausesOnAFullDiskAndResumesWhenSpaceReturns() throws {
        let fs = try SmallFileSystem(kilobytes: 512)
        defer { fs.unmount() }
        let store = RecordingStore(directory: fs.path + "/recordings")
        let header = RecordingHeader(deviceID: "full", source: "test", rateHz: 200, sensors: .all,
                                     utcOffsetNanos: 1_700_000_000_000_000_000, createdUTCNanos: 1_700_000_000_000_000_000)
        let recorder = FileSensorRecorder(store: store, clock: WallClockMapping(offsetNanos: 0), retryInterval: 0.05) { _ in header }
        recorder.pipeline(didProduce: batch(0).span, of: .accelerometer, interval: 0.005)
        #expect(recorder.status.error == nil)
        fs.fill()
        var round = 1
        while recorder.status.error == nil, round < 200 {
            recorder.pipeline(didProduce: batch(round).span, of: .accelerometer, interval: 0.005)
            round += 1
        }
        #expect(recorder.status.error != nil, "the full disk stopped the recorder")
        let recordedWhileFull = recorder.status.samples

        fs.makeRoom()
        usleep(100_000)
        recorder.pipeline(didProduce: batch(round).span, of: .accelerometer, interval: 0.005)
        #expect(recorder.status.error == nil, "resumed")
        #expect(recorder.status.samples == recordedWhileFull + 200)
        #expect(recorder.status.files >= 2, "a new file after the pause")
        recorder.pipeline(didEnd: .stopped)
    }
}
