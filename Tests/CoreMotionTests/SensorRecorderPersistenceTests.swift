import Foundation
import Testing
@testable import CoreMotion
import EdgeMotion
import MotionCore
import Sensors
import TestSupport

/// `CMSensorRecorder` keeps what it records on disk for 3 days, across launches: a second
/// recorder (a new launch, reading the same directory) finds the first one's samples, and files
/// whose newest sample is older than 3 days are gone when a recorder starts.
@Suite("CMSensorRecorder on disk", .serialized, .ownThread)
struct SensorRecorderPersistenceTests {
    let directory = NSTemporaryDirectory() + "coremotion-recorder-\(UUID().uuidString)"
    /// The stationary simulator, in real time (roll 10°, pitch −5°).
    let service = MotionService(source: SimulatedIMU(options: SimulatorOptions(scenario: .stationary)))

    @Test("A new recorder (next launch) reads what an earlier one recorded, at 50 Hz, at rest −0.98 g on z")
    func samplesSurviveTheRecorder() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let start = Date()
        do {
            let first = CMSensorRecorder(service: service, directory: directory)
            first.recordAccelerometer(forDuration: 3)
            try await Task.sleep(for: .seconds(4.5))   // 3 s recorded, then the file is closed
        }
        let next = CMSensorRecorder(service: nil, directory: directory)   // no source: only the files
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
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = RecordingStore(directory: directory)
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
        // Last written 4 days ago, as such a file would be (the store ages files by their mtime).
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -4 * 86_400)], ofItemAtPath: path)
        // A file of yesterday stays.
        let yesterday = Int64((Date().timeIntervalSince1970 - 86_400) * 1e9)
        let recent = store.newFilePath(utcNanos: yesterday)
        let w2 = try RecordingWriter(path: recent, header: RecordingHeader(deviceID: "test", source: "test", rateHz: 50, sensors: .accelerometer,
                                                                         utcOffsetNanos: yesterday, createdUTCNanos: yesterday))
        try w2.append(IMUSample(timestampNanos: 1, sequence: 0, specificForce: Vector3(0, 0, 9.81), contents: .accelerometer))
        try w2.close()
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -86_400)], ofItemAtPath: recent)
        #expect(FileManager.default.fileExists(atPath: path))
        _ = CMSensorRecorder(service: nil, directory: directory)
        #expect(!FileManager.default.fileExists(atPath: path), "a 4-day-old recording must be gone")
        #expect(FileManager.default.fileExists(atPath: recent), "a 1-day-old recording stays")
    }
}
