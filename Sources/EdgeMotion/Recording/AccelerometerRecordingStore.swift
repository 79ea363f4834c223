/// Where a `SensorRecorder` keeps what it records, the one store protocol of the recorders:
/// `InMemoryAccelerometerStore` (a bounded ring, the default) or `FileAccelerometerStore` (`.emr`
/// files in a `RecordingStore`, written by the `FileSensorRecorder` the agent's `recorder:` uses
/// for every sensor, so both kinds of recording are the same files, listed and exported alike).
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
    /// Samples with `from <= startDate < to` (UTC seconds since 1970), oldest first.
    func samples(fromUTC from: Double, toUTC to: Double) -> [RecordedAccelerometerData]
    /// The recording ended (its duration is over or it was stopped): a file store closes its file.
    /// Called from any thread, after the recorder left the pipeline. Does nothing by default.
    func recordingEnded()
}

extension AccelerometerRecordingStore {
    public func recordingEnded() {}
}
