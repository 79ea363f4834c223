import Foundation
import Testing
import MotionCore
import Sensors
@testable import EdgeMotion

/// `FileAccelerometerStore`, the file-backed side of the recorders' one store protocol: what is
/// appended comes back from the `.emr` files (values written by hand below), from a second store
/// over the same directory too (the files outlive the store), exactly as the in-memory store
/// answers; and a `SensorRecorder` records into it end to end.
@Suite("File accelerometer store", .hangLimit)
struct FileAccelerometerStoreTests {
    static func directory(_ name: String) -> String {
        NSTemporaryDirectory() + "edgemotion-\(name)-\(UUID().uuidString)"
    }

    /// Three samples 20 ms apart, 100 s after boot; the board booted at 2026-01-01T00:00:00Z
    /// (1 767 225 600 s), so sample k's UTC is 1 767 225 700 + 0.02 k s.
    static let written: [RecordedAccelerometerData] = [
        RecordedAccelerometerData(identifier: 10, timestamp: 100.00, startDate: 1_767_225_700.00, acceleration: Acceleration(x: 0, y: 0, z: -1)),
        RecordedAccelerometerData(identifier: 11, timestamp: 100.02, startDate: 1_767_225_700.02, acceleration: Acceleration(x: 0.5, y: -0.25, z: -1)),
        RecordedAccelerometerData(identifier: 12, timestamp: 100.04, startDate: 1_767_225_700.04, acceleration: Acceleration(x: -2, y: 0.125, z: 0.75)),
    ]

    func append(_ samples: [RecordedAccelerometerData], to store: any AccelerometerRecordingStore) {
        store.reserve(samples.count)
        samples.withUnsafeBufferPointer { store.append($0) }
    }

    func expectSame(_ got: [RecordedAccelerometerData], _ want: ArraySlice<RecordedAccelerometerData>,
                    sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(got.map(\.identifier) == want.map(\.identifier), sourceLocation: sourceLocation)
        for (g, w) in zip(got, want) {
            #expect(abs(g.timestamp - w.timestamp) < 1e-9, sourceLocation: sourceLocation)
            #expect(abs(g.startDate - w.startDate) < 1e-6, "within a microsecond", sourceLocation: sourceLocation)
            // Files keep specific force as Float: 2 g is 19.6133 m/s², a float step of ~2e-6 m/s².
            #expect(abs(g.acceleration.x - w.acceleration.x) < 1e-6 && abs(g.acceleration.y - w.acceleration.y) < 1e-6
                    && abs(g.acceleration.z - w.acceleration.z) < 1e-6, sourceLocation: sourceLocation)
        }
    }

    @Test func appendedSamplesComeBackForTheAskedRangeFromTheFilesAsFromMemory() throws {
        let dir = Self.directory("filestore")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = FileAccelerometerStore(store: RecordingStore(directory: dir))
        let memory = InMemoryAccelerometerStore()
        for store in [file, memory] as [any AccelerometerRecordingStore] { append(Self.written, to: store) }

        #expect(file.status.error == nil)
        #expect(file.status.files == 1)
        #expect(file.store.files().count == 1, "one .emr file in the directory")
        // [100.01, 100.05) holds samples 11 and 12; [100, 100.02) only 10; after them nothing.
        expectSame(file.samples(from: 100.01, to: 100.05), Self.written[1...])
        expectSame(file.samples(from: 100, to: 100.02), Self.written[0..<1])
        #expect(file.samples(from: 100.05, to: 200).isEmpty)
        expectSame(memory.samples(from: 100.01, to: 100.05), Self.written[1...])
        // By UTC: [1 767 225 700.01, 1 767 225 700.05) is samples 11 and 12 again, in both stores.
        expectSame(file.samples(fromUTC: 1_767_225_700.01, toUTC: 1_767_225_700.05), Self.written[1...])
        expectSame(memory.samples(fromUTC: 1_767_225_700.01, toUTC: 1_767_225_700.05), Self.written[1...])
        #expect(file.samples(fromUTC: 1_767_225_600, toUTC: 1_767_225_699.99).isEmpty)
        // The files outlive the store: a new one over the same directory reads the same.
        expectSame(FileAccelerometerStore(store: RecordingStore(directory: dir)).samples(from: 0, to: 1000), Self.written[...])
    }

    @Test func eachBatchIsReadableAtOnceNotOnlyWhenABlockFills() throws {
        let dir = Self.directory("filestore-batches")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = FileAccelerometerStore(store: RecordingStore(directory: dir))
        append(Array(Self.written[0..<1]), to: file)
        #expect(file.samples(from: 0, to: 1000).map(\.identifier) == [10])
        append(Array(Self.written[1...]), to: file)
        #expect(file.samples(from: 0, to: 1000).map(\.identifier) == [10, 11, 12])
    }

    @Test func aSensorRecorderRecordsIntoFiles() throws {
        let dir = Self.directory("filestore-recorder")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let source = GatedSource(rate: 200, count: 1000)   // 5 s of a level device, 1 s after boot
        let store = FileAccelerometerStore(store: RecordingStore(directory: dir))
        let recorder = SensorRecorder(service: MotionService(source: source), store: store)
        try recorder.recordAccelerometer(forDuration: 60)
        source.open()
        let everything = { recorder.accelerometerData(from: MonotonicInstant(secondsSinceBoot: 0), to: MonotonicInstant(secondsSinceBoot: 100)) }
        #expect(eventually { everything().count == 250 })
        // Every fourth sample at 50 Hz, lying level: −1 g on z.
        #expect(everything().map(\.identifier) == Array(stride(from: 0, to: 1000, by: 4)).map(UInt64.init))
        #expect(everything().allSatisfy { abs($0.acceleration.z + 1) < 1e-6 && abs($0.acceleration.x) < 1e-6 })
        recorder.stopRecording()
        #expect(!store.store.files().isEmpty)
    }
}
