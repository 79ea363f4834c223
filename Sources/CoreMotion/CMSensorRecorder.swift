import Foundation
import Synchronization
internal import EdgeMotion
internal import MotionCore
internal import Sensors

/// The samples of one `CMSensorRecorder` query. Iterate with `for data in list` (elements are
/// `Any`, as with Core Motion's `NSFastEnumeration`) or
/// `for case let data as CMRecordedAccelerometerData in list`. Immutable.
open class CMSensorDataList: NSObject, Sequence, @unchecked Sendable {
    private let items: [CMRecordedAccelerometerData]
    init(_ items: [CMRecordedAccelerometerData]) { self.items = items; super.init() }

    public func makeIterator() -> AnyIterator<Any> {
        var i = items.makeIterator()
        return AnyIterator { i.next() }
    }
}

/// Core Motion's `CMSensorRecorder`: records the accelerometer at 50 Hz for a duration and keeps
/// the samples **on disk for 3 days**, across launches, in rotating EdgeMotion recording files
/// (`edgemotion recordings` reads them too).
///
/// Directory: `EDGEMOTION_SENSOR_RECORDER_DIRECTORY`, else `$XDG_STATE_HOME/edgemotion/sensor-recorder`,
/// else `~/.local/state/edgemotion/sensor-recorder`. Differences from iOS: the recording runs
/// while this process runs (iOS records in the background after the app exits), and samples reach
/// the files in blocks of up to 200 (4 s at 50 Hz), so the newest few seconds of a running
/// recording may not be in a query yet. Thread-safe (state behind a lock).
open class CMSensorRecorder: NSObject, @unchecked Sendable {
    /// Retention of recorded samples, seconds (3 days, as Core Motion).
    public static let retentionSeconds: TimeInterval = 3 * 86_400
    /// Recording rate, Hz (Core Motion's 50 Hz).
    public static let recordingRate: Double = 50

    private let lock = NSLock()
    private var consumer: MotionConsumerID?
    private var writer: FileSensorRecorder?
    private var timed: TimedRecording?
    private var epoch: UInt64 = 0
    let store: RecordingStore
    let service: MotionService?

    public override convenience init() {
        self.init(service: SystemMotion.service, directory: Self.directory(ProcessInfo.processInfo.environment))
    }

    /// A recorder of `service` keeping its files in `directory` (tests; the public `init()` uses
    /// the system source and the documented directory).
    init(service: MotionService?, directory: String) {
        self.service = service
        store = RecordingStore(directory: directory,
                               limits: RecordingLimits(maximumFileSeconds: 3600, maximumAgeSeconds: Self.retentionSeconds))
        super.init()
        _ = store.enforceLimits(nowUTCNanos: Int64(Date().timeIntervalSince1970 * 1e9))
    }

    static func directory(_ env: [String: String]) -> String {
        if let d = env["EDGEMOTION_SENSOR_RECORDER_DIRECTORY"], !d.isEmpty { return d }
        if let x = env["XDG_STATE_HOME"], !x.isEmpty { return x + "/edgemotion/sensor-recorder" }
        return (env["HOME"] ?? NSHomeDirectory()) + "/.local/state/edgemotion/sensor-recorder"
    }

    open class func isAccelerometerRecordingAvailable() -> Bool {
        SystemMotion.service?.capabilities.sensors.contains(.accelerometer) ?? false
    }
    open class func authorizationStatus() -> CMAuthorizationStatus { .authorized }
    /// Always true (no per-app permission on Linux).
    open class func isAuthorizedForRecording() -> Bool { true }

    /// Records the accelerometer from now for `duration` seconds (at most 12 hours), replacing
    /// the end of a running recording. Does nothing without an accelerometer.
    open func recordAccelerometer(forDuration duration: TimeInterval) {
        guard let service, service.capabilities.sensors.contains(.accelerometer), duration > 0 else { return }
        let seconds = min(duration, 12 * 3600)
        let until = MonotonicClock.nowNanos() &+ UInt64(seconds * 1e9)
        lock.lock()
        epoch &+= 1
        let mine = epoch
        timed?.until.store(until, ordering: .relaxed)
        if consumer == nil {
            let clock = WallClockMapping.current()
            let name = service.capabilities.name, sensors = service.capabilities.sensors
            let rate = min(Self.recordingRate, service.sourceRate)
            let recorder = FileSensorRecorder(store: store, stream: .accelerometer, clock: clock) { created in
                RecordingHeader(deviceID: "coremotion", source: name, rateHz: rate, sensors: sensors,
                                utcOffsetNanos: clock.offsetNanos, createdUTCNanos: created)
            }
            let cut = TimedRecording(file: recorder, until: until)
            do {
                consumer = try service.addConsumer(cut, schedule: .only(.accelerometer, StreamSchedule(rate: Self.recordingRate, publishRate: 1)))
                writer = recorder
                timed = cut
            } catch {
                SystemMotion.report("CMSensorRecorder could not start: \(error)")
            }
        }
        lock.unlock()
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak self] in self?.finish(epoch: mine) }
    }

    private func finish(epoch ended: UInt64) {
        lock.lock()
        guard ended == epoch, let id = consumer, let recorder = writer else { lock.unlock(); return }
        consumer = nil
        writer = nil
        timed = nil
        lock.unlock()
        service?.removeConsumer(id)
        // The pipeline stops calling it once removed (between drains); then close the file so the
        // last block is on disk.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { recorder.pipeline(didEnd: .stopped) }
    }

    /// The recorded samples taken in `[fromDate, toDate)`, oldest first, from every file kept
    /// (this launch's and earlier ones' within the 3 days); `nil` when none.
    open func accelerometerData(from fromDate: Date, to toDate: Date) -> CMSensorDataList? {
        let active = lock.withLock { writer }
        let catalog = RecordingCatalog(store: store, activeFile: { active?.currentFile })
        let found = catalog.samples(fromUTCNanos: Int64(fromDate.timeIntervalSince1970 * 1e9),
                                    toUTCNanos: Int64(toDate.timeIntervalSince1970 * 1e9), skip: 0, limit: Int.max).samples
        guard !found.isEmpty else { return nil }
        return CMSensorDataList(found.map { r in
            CMRecordedAccelerometerData(RecordedAccelerometerData(
                identifier: r.sample.sequence, timestamp: r.sample.timestamp, startDate: Double(r.utcNanos) * 1e-9,
                acceleration: Acceleration(specificForce: r.sample.specificForce)))
        })
    }
}

/// Passes the recorded stream to the file recorder up to `until` (monotonic ns) only, so a
/// recording holds its asked duration even when the stop that removes it from the pipeline runs
/// late. Runs on the processing thread; `until` is an atomic the caller may move (a longer
/// `recordAccelerometer`), so sharing it is safe.
final class TimedRecording: PipelineOutput, @unchecked Sendable {
    let file: FileSensorRecorder
    let until: Atomic<UInt64>

    init(file: FileSensorRecorder, until: UInt64) {
        self.file = file
        self.until = Atomic(until)
    }

    func pipeline(didProduce samples: Span<IMUSample>, of stream: SensorStream, interval: Double) {
        let limit = until.load(ordering: .relaxed)
        var n = 0
        while n < samples.count, samples[n].timestampNanos <= limit { n += 1 }
        guard n > 0 else { return }
        file.pipeline(didProduce: n == samples.count ? samples : samples.extracting(0..<n), of: stream, interval: interval)
    }

    func pipeline(didEnd reason: PipelineEnd) { file.pipeline(didEnd: reason) }
}
