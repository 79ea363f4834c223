import Foundation
import Testing
@testable import CoreMotion
import EdgeMotion

/// `CMSensorRecorder` keeps what it records on disk for 3 days, across launches: a second
/// recorder (a new launch, reading the same directory) finds the first one's samples, and files
/// whose newest sample is older than 3 days are gone when a recorder starts.
@Suite("CMSensorRecorder on disk", .serialized)
struct SensorRecorderPersistenceTests {
    /// The in-process system source: the stationary simulator (set before its first use).
    static let directory: String = {
        setenv("EDGEMOTION_SOURCE", "simulator:stationary", 0)
        let d = NSTemporaryDirectory() + "coremotion-recorder-\(UUID().uuidString)"
        setenv("EDGEMOTION_SENSOR_RECORDER_DIRECTORY", d, 1)
        return d
    }()

    @Test("A new recorder (next launch) reads what an earlier one recorded, at 50 Hz, at rest −0.98 g on z")
    func samplesSurviveTheRecorder() async throws {
        _ = Self.directory
        guard SystemMotion.service != nil else {
            Issue.record("EDGEMOTION_SOURCE was set by another test first: \(SystemMotion.shared.summary)")
            return
        }
        let start = Date()
        do {
            let first = CMSensorRecorder()
            first.recordAccelerometer(forDuration: 3)
            try await Task.sleep(for: .seconds(4.5))   // 3 s recorded, then the file is closed
        }
        let next = CMSensorRecorder()
        let list = try #require(next.accelerometerData(from: start, to: Date()))
        var items: [CMRecordedAccelerometerData] = []
        for case let item as CMRecordedAccelerometerData in list { items.append(item) }
        #expect(items.count >= 140 && items.count <= 155, "3 s at 50 Hz: \(items.count)")
        #expect(zip(items, items.dropFirst()).allSatisfy { $0.identifier < $1.identifier && $0.startDate < $1.startDate })
        let span = items.last!.startDate.timeIntervalSince(items.first!.startDate)
        #expect(abs(Double(items.count - 1) / span - 50) < 1)
        // The stationary simulator (roll 10°, pitch −5°): z reads −cos 10° cos 5° = −0.981 g.
        let meanZ = items.map(\.acceleration.z).reduce(0, +) / Double(items.count)
        #expect(abs(meanZ + 0.981) < 0.01)
        #expect(items.allSatisfy { $0.startDate >= start.addingTimeInterval(-0.1) })
        // Outside the range: nothing.
        #expect(next.accelerometerData(from: start.addingTimeInterval(-3600), to: start.addingTimeInterval(-3000)) == nil)
    }

    @Test("Files older than 3 days are removed when a recorder starts")
    func oldRecordingsExpire() throws {
        _ = Self.directory
        let store = RecordingStore(directory: Self.directory)
        try store.prepare()
        // A recording whose samples were taken 4 days ago (UTC), written as the recorder would.
        let fourDaysAgo = Int64((Date().timeIntervalSince1970 - 4 * 86_400) * 1e9)
        let path = store.newFilePath(utcNanos: fourDaysAgo)
        let header = RecordingHeader(deviceID: "test", source: "test", rateHz: 50, sensors: .accelerometer,
                                     utcOffsetNanos: fourDaysAgo, createdUTCNanos: fourDaysAgo)
        let writer = try RecordingWriter(path: path, header: header)
        for k in 0..<10 {
            try writer.append(IMUSample(timestampNanos: UInt64(k) * 20_000_000, sequence: UInt64(k),
                                        specificForce: Vector3(0, 0, 9.81), contents: .accelerometer))
        }
        try writer.close()
        #expect(FileManager.default.fileExists(atPath: path))
        _ = CMSensorRecorder()
        #expect(!FileManager.default.fileExists(atPath: path), "a 4-day-old recording must be gone")
    }
}
