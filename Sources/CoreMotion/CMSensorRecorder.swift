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
/// the files once a second, so the newest second of a running recording may not be in a query
/// yet. Thread-safe.
///
/// The library's `SensorRecorder` over a `FileAccelerometerStore` (the recording itself lives in
/// EdgeMotion/Recording, one home for both); this class adds Core Motion's names, the directory,
/// the 3-day retention and the `Date` queries.
open class CMSensorRecorder: NSObject, @unchecked Sendable {
    // @unchecked Sendable (NSObject subclasses cannot be checked): every stored property is a
    // `let` of a Sendable type; `SensorRecorder` and `FileAccelerometerStore` are thread-safe.

    /// Retention of recorded samples, seconds (3 days, as Core Motion).
    public static let retentionSeconds: TimeInterval = 3 * 86_400
    /// Recording rate, Hz (Core Motion's 50 Hz).
    public static let recordingRate: Double = 50

    let files: FileAccelerometerStore
    /// Nil without a source (only the files are read).
    let recorder: SensorRecorder?
    var store: RecordingStore { files.store }

    public override convenience init() {
        self.init(service: SystemMotion.service, directory: Self.directory(ProcessInfo.processInfo.environment))
    }

    /// A recorder of `service` keeping its files in `directory` (tests; the public `init()` uses
    /// the system source and the documented directory).
    init(service: MotionService?, directory: String) {
        let store = RecordingStore(directory: directory,
                                   limits: RecordingLimits(maximumFileSeconds: 3600, maximumAgeSeconds: Self.retentionSeconds))
        let files = FileAccelerometerStore(store: store, deviceID: "coremotion", source: service?.capabilities.name ?? "none",
                                           rateHz: min(Self.recordingRate, service?.sourceRate ?? Self.recordingRate))
        self.files = files
        recorder = service.map { SensorRecorder(service: $0, store: files, rate: Self.recordingRate, maximumDuration: 12 * 3600) }
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
        guard let recorder, recorder.isAccelerometerRecordingAvailable(), duration > 0 else { return }
        do {
            try recorder.recordAccelerometer(forDuration: duration)
        } catch {
            SystemMotion.report("CMSensorRecorder could not start: \(error)")
        }
    }

    /// The recorded samples taken in `[fromDate, toDate)`, oldest first, from every file kept
    /// (this launch's and earlier ones' within the 3 days); `nil` when none.
    open func accelerometerData(from fromDate: Date, to toDate: Date) -> CMSensorDataList? {
        let found = files.samples(fromUTC: fromDate.timeIntervalSince1970, toUTC: toDate.timeIntervalSince1970)
        guard !found.isEmpty else { return nil }
        return CMSensorDataList(found.map { CMRecordedAccelerometerData($0) })
    }
}
