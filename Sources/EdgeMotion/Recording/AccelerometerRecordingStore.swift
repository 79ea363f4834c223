/// Where a `SensorRecorder` keeps what it records. The in-memory ring is the only store today.
/// `FileSensorRecorder` (the agent's `.emr` files) is not one: it is a pipeline output of its own,
/// not behind this protocol; a file-backed store for `SensorRecorder` would implement this
/// protocol over a `RecordingStore`.
///
/// `append` is called on the pipeline's processing thread once per recorded batch (about once
/// a second) and must not block for long; queries come from any thread.
public protocol AccelerometerRecordingStore: AnyObject, Sendable {
    /// Makes room for at least `count` samples (the longest recording asked for). Called outside
    /// the processing thread; may allocate.
    func reserve(_ count: Int)
    /// Adds samples, oldest first; the oldest stored samples make room when full.
    func append(_ samples: UnsafeBufferPointer<RecordedAccelerometerData>)
    /// Samples with `from <= timestamp < to` (monotonic seconds), oldest first.
    func samples(from: Double, to: Double) -> [RecordedAccelerometerData]
}
