import Logging
import MotionCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Core Motion's `CMSensorRecorder`, file-backed: a `PipelineOutput` that writes the raw
/// samples of one stream (with every sensor they carry) to rotating recording files in a
/// `RecordingStore`, keeping it within its `RecordingLimits`. The agent's `recorder:` uses it
/// directly; `SensorRecorder` reaches it through its store protocol (`FileAccelerometerStore`).
///
/// Runs on the processing thread. Per sample it only appends to a preallocated block; once per
/// block (≤ 200 samples) it does one `write`. Rotation (close, `fdatasync`, retention, create)
/// happens at most once per file. A write error (disk full, directory removed) pauses recording
/// with one log line; the pipeline keeps running, and every `retryInterval` seconds the recorder
/// tries a new file, resuming (one log line) once the disk takes writes again. `status.error`
/// says why while it is paused.
public final class FileSensorRecorder: PipelineOutput, @unchecked Sendable {
    public let store: RecordingStore
    /// The stream whose batches are recorded (normally the accelerometer stream at the source rate).
    public let stream: SensorStream
    private let makeHeader: @Sendable (_ createdUTCNanos: Int64) -> RecordingHeader
    private let clock: WallClockMapping
    private let log = Logger(label: "recorder")
    private var writer: RecordingWriter?
    private var openedNanos: UInt64 = 0
    /// When recording failed (monotonic ns), while paused.
    private var failedAtNanos: UInt64?
    /// Seconds between attempts to resume after a write error.
    public let retryInterval: Double
    private let counters = Mutex<(samples: UInt64, files: Int, error: String?)>((0, 0, nil))
    private let openPath = Mutex<String?>(nil)

    /// - Parameter header: builds a file's header given its creation time (UTC ns).
    public init(store: RecordingStore, stream: SensorStream = .accelerometer, clock: WallClockMapping,
                retryInterval: Double = 5,
                header: @escaping @Sendable (_ createdUTCNanos: Int64) -> RecordingHeader) {
        self.retryInterval = retryInterval
        self.store = store
        self.stream = stream
        self.clock = clock
        self.makeHeader = header
    }

    /// Samples recorded, files created, and the error that pauses recording, if it is paused.
    public var status: (samples: UInt64, files: Int, error: String?) { counters.withLock { $0 } }

    /// The file being written now, if any (changes at rotation; for readers that must treat it
    /// as growing, e.g. `RecordingCatalog`).
    public var currentFile: String? { openPath.withLock { $0 } }

    public func pipeline(didProduce samples: Span<IMUSample>, of stream: SensorStream, interval: Double) {
        guard stream == self.stream, !samples.isEmpty else { return }
        let now = MonotonicClock.nowNanos()
        if let t = failedAtNanos {
            guard Double(now &- t) * 1e-9 >= retryInterval else { return }
        }
        do {
            if let w = writer, w.bytesWritten >= store.limits.maximumFileBytes
                || Double(now &- openedNanos) * 1e-9 >= store.limits.maximumFileSeconds {
                openPath.withLock { $0 = nil }
                try w.close()
                writer = nil
            }
            if writer == nil {
                try store.prepare()
                // Named and aged by the samples' own UTC times (the recording's mapping), so a
                // wall-clock step neither misnames a file nor makes retention delete a fresh one.
                let utc = UInt64(bitPattern: clock.utcNanos(monotonic: samples[0].timestampNanos))
                let path = store.newFilePath(utcNanos: Int64(bitPattern: utc))
                writer = try RecordingWriter(path: path, header: makeHeader(Int64(bitPattern: utc)))
                openedNanos = now
                openPath.withLock { $0 = path }
                counters.withLock { $0.files += 1 }
                let removed = store.enforceLimits(nowUTCNanos: Int64(bitPattern: utc), keeping: path)
                log.info("recording to a new file", ["file": path, "removed_old_files": "\(removed.count)"])
            }
            for i in samples.indices { try writer!.append(samples[i]) }
            counters.withLock { $0.samples &+= UInt64(samples.count) }
            if failedAtNanos != nil {
                failedAtNanos = nil
                counters.withLock { $0.error = nil }
                log.notice("recording resumed", ["file": currentFile ?? "?"])
            }
        } catch {
            pause(error, now: now)
        }
    }

    /// Writes the samples gathered in the current block now (one `write`), for a reader that
    /// wants them before the block fills: `FileAccelerometerStore`, once per batch. Processing
    /// thread only; an error pauses recording as a failed write does.
    public func flush() {
        do { try writer?.flush() } catch { pause(error, now: MonotonicClock.nowNanos()) }
    }

    /// A write error: recording pauses (one log line), the file is closed, a new one is tried
    /// after `retryInterval`.
    private func pause(_ error: any Error, now: UInt64) {
        let first = failedAtNanos == nil
        let text = String(describing: error)
        failedAtNanos = now
        counters.withLock { $0.error = text }
        if first {
            log.error("recording paused; retrying", ["error": text, "retry_every_s": "\(retryInterval)"])
        }
        openPath.withLock { $0 = nil }
        try? writer?.close()
        writer = nil
    }

    public func pipeline(didEnd reason: PipelineEnd) {
        openPath.withLock { $0 = nil }
        do {
            try writer?.close()
        } catch {
            counters.withLock { $0.error = error.description }
            log.error("closing the recording failed", ["error": error.description])
        }
        writer = nil
    }
}
