import Dispatch
import MotionCore
import Sensors
import Synchronization

/// Core Motion's `CMSensorRecorder`: records the accelerometer at 50 Hz in the background for a
/// duration, and answers queries over what was recorded.
///
/// The recording is a runtime consumer of the source's shared pipeline (no extra thread): one
/// batch a second is converted into a preallocated buffer and appended to the `store` under one
/// lock, with no allocation. The default store is an in-memory ring holding the longest
/// recording asked for (duration × rate samples, 48 bytes each: one hour ≈ 8.6 MB); pass a
/// `FileAccelerometerStore` to keep more, in files that outlive the process.
///
/// Queries take typed instants: `MonotonicInstant` (`AccelerometerData.timestamp`'s clock) or
/// `UTCInstant` (Core Motion's `Date`s); each sample carries both its monotonic `timestamp` and
/// its UTC `startDate`.
public final class SensorRecorder: Sendable {
    public let service: MotionService
    public let store: any AccelerometerRecordingStore
    /// Recording rate in Hz as asked (Core Motion records at 50 Hz); capped at the source rate.
    public let requestedRate: Double
    /// The longest recording the in-memory store keeps, seconds (older samples are overwritten).
    public let maximumDuration: Double

    private struct Recording {
        var consumer: MotionConsumerID?
        var sink: RecorderSink?
        /// Monotonic nanoseconds after which samples are no longer kept.
        var untilNanos: UInt64 = 0
        var epoch: UInt64 = 0
    }

    private let recording = Mutex(Recording())

    public convenience init(source: any IMUSource) {
        self.init(service: .shared(for: source))
    }

    public init(service: MotionService, store: any AccelerometerRecordingStore = InMemoryAccelerometerStore(),
                rate: Double = 50, maximumDuration: Double = 12 * 3600) {
        self.service = service
        self.store = store
        self.requestedRate = rate
        self.maximumDuration = maximumDuration
    }

    /// Whether this source can record the accelerometer (it has one).
    public func isAccelerometerRecordingAvailable() -> Bool {
        service.capabilities.sensors.contains(.accelerometer)
    }

    /// Always `true`: Linux has no per-app motion permission (`isAuthorizedForRecording`).
    public func isAuthorizedForRecording() -> Bool { true }

    /// The rate samples are recorded at, Hz (the requested rate as the source can deliver it).
    public var rate: Double { service.effectiveSchedule(StreamSchedule(rate: requestedRate, publishRate: 1)).rate }

    /// Whether a recording is running.
    public var isRecording: Bool {
        recording.withLock { $0.consumer != nil && MonotonicClock.nowNanos() < $0.untilNanos }
    }

    /// Records the accelerometer from now for `duration` seconds (capped at `maximumDuration`),
    /// replacing the end of a running recording. Throws `MotionError.notAvailable` without an
    /// accelerometer, `.invalidParameter` for a non-positive duration, `.sourceStartFailed` when
    /// the source cannot start.
    public func recordAccelerometer(forDuration duration: Double) throws(MotionError) {
        guard isAccelerometerRecordingAvailable() else {
            throw MotionError(.notAvailable, detail: "\(service.capabilities.name) has no accelerometer to record")
        }
        guard duration.isFinite, duration > 0 else {
            throw MotionError(.invalidParameter, detail: "recording duration \(duration) s: give a positive number of seconds")
        }
        let seconds = min(duration, maximumDuration)
        let rate = self.rate
        store.reserve(Int((seconds * rate).rounded(.up)) + Int(rate.rounded(.up)))
        let until = MonotonicClock.nowNanos() &+ UInt64(seconds * 1e9)
        let epoch: UInt64 = try recording.withLock { (r: inout Recording) throws(MotionError) -> UInt64 in
            r.untilNanos = until
            r.epoch &+= 1
            if let sink = r.sink {
                sink.untilNanos.store(until, ordering: .relaxed)
                return r.epoch
            }
            let sink = RecorderSink(store: store, batchCapacity: max(1, Int(rate.rounded(.up))),
                                    clock: WallClockMapping.current(), untilNanos: until)
            do {
                r.consumer = try service.addConsumer(sink, schedule: .only(.accelerometer, StreamSchedule(rate: requestedRate, publishRate: 1)))
                r.sink = sink
            } catch {
                throw MotionError(.sourceStartFailed, detail: "\(error)")
            }
            return r.epoch
        }
        // Leave the pipeline once the duration is over (and the last batch is in).
        let nanos = Int(seconds * 1e9) + 1_500_000_000
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanos)) { [weak self] in
            self?.finish(epoch: epoch)
        }
    }

    /// Stops a running recording now (what was recorded stays queryable).
    public func stopRecording() {
        let id = recording.withLock { r -> MotionConsumerID? in
            defer { r.consumer = nil; r.sink = nil; r.untilNanos = 0 }
            return r.consumer
        }
        if let id {
            service.removeConsumer(id)
            store.recordingEnded()
        }
    }

    /// Recorded samples with `from <= timestamp < to` on `CLOCK_MONOTONIC`, oldest first.
    /// Samples reach the store once a second, so the last second of a running recording may not
    /// be there yet.
    public func accelerometerData(from: MonotonicInstant, to: MonotonicInstant) -> [RecordedAccelerometerData] {
        store.samples(from: from.secondsSinceBoot, to: to.secondsSinceBoot)
    }

    /// Recorded samples whose `startDate` is between two UTC instants (Core Motion's
    /// `accelerometerData(from:to:)` with `Date`s), oldest first; from a file store also what
    /// earlier launches recorded.
    public func accelerometerData(from: UTCInstant, to: UTCInstant) -> [RecordedAccelerometerData] {
        store.samples(fromUTC: from.secondsSince1970, toUTC: to.secondsSince1970)
    }

    private func finish(epoch: UInt64) {
        let id = recording.withLock { r -> MotionConsumerID? in
            guard r.epoch == epoch else { return nil }
            defer { r.consumer = nil; r.sink = nil }
            return r.consumer
        }
        if let id {
            service.removeConsumer(id)
            store.recordingEnded()
        }
    }
}

/// The recorder's pipeline consumer: converts each batch into a preallocated buffer (processing
/// thread only) and appends it to the store.
final class RecorderSink: PipelineOutput, @unchecked Sendable {
    private let store: any AccelerometerRecordingStore
    private let buffer: UnsafeMutableBufferPointer<RecordedAccelerometerData>
    private let clock: WallClockMapping
    let untilNanos: Atomic<UInt64>

    init(store: any AccelerometerRecordingStore, batchCapacity: Int, clock: WallClockMapping, untilNanos: UInt64) {
        self.store = store
        self.clock = clock
        self.untilNanos = Atomic(untilNanos)
        buffer = .allocate(capacity: batchCapacity)
    }

    deinit { buffer.deallocate() }

    func pipeline(didProduce samples: Span<IMUSample>, of stream: SensorStream, interval: Double) {
        guard stream == .accelerometer else { return }
        let until = untilNanos.load(ordering: .relaxed)
        var n = 0
        for i in samples.indices where n < buffer.count {
            let s = samples[i]
            guard s.timestampNanos <= until else { continue }
            buffer[n] = RecordedAccelerometerData(
                identifier: s.sequence, timestamp: s.timestamp,
                startDate: Double(clock.utcNanos(monotonic: s.timestampNanos)) * 1e-9,
                acceleration: Acceleration(specificForce: s.specificForce))
            n += 1
        }
        if n > 0 { store.append(UnsafeBufferPointer(rebasing: buffer[0..<n])) }
    }
}
