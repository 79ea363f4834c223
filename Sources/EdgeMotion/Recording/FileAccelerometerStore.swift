import MotionCore
import Synchronization

/// The file-backed `AccelerometerRecordingStore`: what a `SensorRecorder` records goes into `.emr`
/// recording files in a `RecordingStore` (rotated and kept within its `RecordingLimits`),
/// written by the same `FileSensorRecorder` the agent records with. So a recording outlives the
/// process, can be longer than memory allows, and `edgemotion recordings` lists and exports it.
///
/// ```swift
/// let store = FileAccelerometerStore(store: RecordingStore(directory: "/var/lib/app/recordings"))
/// let recorder = SensorRecorder(service: .shared(for: source), store: store)
/// ```
///
/// `append` (the processing thread, once per batch) converts the batch back to accelerometer
/// samples (m/s², IIO sign) in a buffer kept between batches and writes it with one `write` (the
/// recorder's block is flushed each batch, so a query sees every appended sample). `samples`
/// and `samples(fromUTC:toUTC:)` read the files, oldest first (the UTC query also those of earlier
/// launches, whose monotonic clock was another boot's). `startDate` comes back from each file's header clock pairing
/// (`utc_offset_ns`, taken from the first batch of the file), within a microsecond of the recorded
/// one; acceleration within the files' float precision. `reserve` only sizes the conversion buffer:
/// the files are bounded by the store's limits, not by the longest recording asked for.
public final class FileAccelerometerStore: AccelerometerRecordingStore {
    /// Where the files go, and their limits.
    public let store: RecordingStore
    /// Writes the files. Used under `scratch`'s lock only (`append`, `recordingEnded`), which
    /// serialises it as its one-thread contract asks; `currentFile` is thread-safe.
    private let recorder: FileSensorRecorder
    /// The conversion buffer, its capacity kept between batches.
    private let scratch = Mutex<[IMUSample]>([])
    /// UTC − monotonic (ns) of the batch being written, for the header of a file opened for it.
    private let offset: Offset

    private final class Offset: Sendable {
        let nanos = Atomic<Int64>(0)
    }

    /// - Parameters:
    ///   - deviceID, source: written into each file's header (`edgemotion recordings` shows them).
    ///   - rateHz: the header's nominal rate (the `SensorRecorder`'s, 50 Hz by default).
    public init(store: RecordingStore, deviceID: String = "edgemotion", source: String = "sensor-recorder",
                rateHz: Double = 50) {
        self.store = store
        let offset = Offset()
        self.offset = offset
        recorder = FileSensorRecorder(store: store, stream: .accelerometer, clock: WallClockMapping.current()) { created in
            RecordingHeader(deviceID: deviceID, source: source, rateHz: rateHz, sensors: .accelerometer,
                            utcOffsetNanos: offset.nanos.load(ordering: .relaxed), createdUTCNanos: created)
        }
    }

    /// Samples recorded, files created, and the error that pauses recording (see `FileSensorRecorder.status`).
    public var status: (samples: UInt64, files: Int, error: String?) { recorder.status }

    public func reserve(_ count: Int) {
        // One batch is at most a second of samples (the recording rate, ≤ the source's).
        scratch.withLock { $0.reserveCapacity(min(count, 1000)) }
    }

    public func append(_ samples: UnsafeBufferPointer<RecordedAccelerometerData>) {
        guard let first = samples.first else { return }
        offset.nanos.store(Int64(((first.startDate - first.timestamp) * 1e9).rounded()), ordering: .relaxed)
        scratch.withLock { converted in
            converted.removeAll(keepingCapacity: true)
            for s in samples {
                converted.append(IMUSample(timestampNanos: UInt64((s.timestamp * 1e9).rounded()), sequence: s.identifier,
                                           specificForce: Self.specificForce(s.acceleration), contents: .accelerometer))
            }
            recorder.pipeline(didProduce: converted.span, of: .accelerometer, interval: 0)
            recorder.flush()
        }
    }

    /// Closes the file (synced); the next batch starts a new one.
    public func recordingEnded() {
        scratch.withLock { _ in recorder.pipeline(didEnd: .stopped) }
    }

    public func samples(from: Double, to: Double) -> [RecordedAccelerometerData] {
        var out: [RecordedAccelerometerData] = []
        for path in store.files() {
            guard let reader = try? RecordingFileReader(path: path) else { continue }   // removed meanwhile
            let utcOffset = reader.header.utcOffsetNanos
            while let s = reader.next() {
                guard s.contents.contains(.accelerometer), s.timestamp >= from, s.timestamp < to else { continue }
                out.append(Self.recorded(s, utcNanos: Int64(bitPattern: s.timestampNanos) &+ utcOffset))
            }
        }
        return out
    }

    /// Through `RecordingCatalog` (which skips files outside the range and reads the one being
    /// written as growing): every file kept, this process's and earlier ones'.
    public func samples(fromUTC from: Double, toUTC to: Double) -> [RecordedAccelerometerData] {
        let recorder = recorder
        let catalog = RecordingCatalog(store: store, activeFile: { recorder.currentFile })
        return catalog.samples(fromUTCNanos: Int64((from * 1e9).rounded()), toUTCNanos: Int64((to * 1e9).rounded()),
                               skip: 0, limit: Int.max).samples
            .filter { $0.sample.contents.contains(.accelerometer) }
            .map { Self.recorded($0.sample, utcNanos: $0.utcNanos) }
    }

    static func recorded(_ s: IMUSample, utcNanos: Int64) -> RecordedAccelerometerData {
        RecordedAccelerometerData(identifier: s.sequence, timestamp: s.timestamp, startDate: Double(utcNanos) * 1e-9,
                                  acceleration: Acceleration(specificForce: s.specificForce))
    }

    /// Core Motion's acceleration (g, gravity −1 on the axis up) back to specific force (m/s²,
    /// +9.80665 on the axis up): the inverse of `Acceleration(specificForce:)`.
    static func specificForce(_ a: Acceleration) -> Vector3 {
        Vector3(-a.x * standardGravity, -a.y * standardGravity, -a.z * standardGravity)
    }
}
