import MotionCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One recorded sample with its UTC time (the file's `utc_offset_ns` applied).
public struct RecordedSample: Sendable {
    /// UTC nanoseconds since the Unix epoch.
    public var utcNanos: Int64
    /// The sample as recorded: CLOCK_MONOTONIC ns, specific force m/s² (IIO sign), raw rad/s, raw µT,
    /// sensor frame.
    public var sample: IMUSample
}

/// Date-range access to a `RecordingStore` for queries (Core Motion's
/// `CMSensorRecorder.accelerometerData(from:to:)` over files): which files overlap a range, and the
/// samples in it a page at a time.
///
/// A file's summary needs a full read (every block's CRC), so summaries are cached per file and
/// reused while its size and modification time are unchanged: a closed file is read once, only the
/// file being written is read again. Paging skips whole files that lie inside the range by their
/// cached sample counts, so page *n* reads at most the files it returns samples from (plus one
/// partly overlapping file). A file is read into memory whole (bounded by `recorder.max_file_mb`).
///
/// Thread-safe; meant for a query queue, never the processing thread or the MQTT network thread.
public final class RecordingCatalog: Sendable {
    public let store: RecordingStore
    private let activeFile: @Sendable () -> String?
    private let cache = Mutex<[String: (bytes: Int, modified: Int64, info: RecordingFileInfo)]>([:])

    /// - Parameter activeFile: the file the recorder is writing now, if any
    ///   (`FileSensorRecorder.currentFile`).
    public init(store: RecordingStore, activeFile: @escaping @Sendable () -> String? = { nil }) {
        self.store = store
        self.activeFile = activeFile
    }

    /// Every file's summary, oldest first (from the cache when the file is unchanged).
    public func list() -> [RecordingFileInfo] {
        let active = activeFile()
        let paths = store.files()
        var result: [RecordingFileInfo] = []
        result.reserveCapacity(paths.count)
        for path in paths {
            var st = stat()
            guard stat(path, &st) == 0 else { continue }  // removed by retention meanwhile
            let bytes = Int(st.st_size)
            let modified = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
            var info: RecordingFileInfo
            if let hit = cache.withLock({ $0[path] }), hit.bytes == bytes, hit.modified == modified {
                info = hit.info
            } else {
                info = RecordingStore.info(path: path)
                cache.withLock { $0[path] = (bytes, modified, info) }
            }
            info.isBeingWritten = path == active
            result.append(info)
        }
        // Forget files that are gone.
        let present = Set(paths)
        cache.withLock { c in
            for key in c.keys where !present.contains(key) { c.removeValue(forKey: key) }
        }
        return result
    }

    /// Summaries of the files holding samples in `[from, to)` (UTC ns), oldest first.
    public func files(fromUTCNanos from: Int64, toUTCNanos to: Int64) -> [RecordingFileInfo] {
        list().filter { f in
            guard f.samples > 0, let first = f.firstUTCNanos, let last = f.lastUTCNanos else { return false }
            return first < to && last >= from
        }
    }

    /// The samples with `from <= utc < to` (UTC ns), oldest first, after skipping the first
    /// `skip` of them; at most `limit`. `more` says whether samples remain after the returned
    /// ones (judged by the summaries of later files, so it can rarely announce a page that turns
    /// out empty when a later file overlaps the range only with a gap in its samples).
    public func samples(fromUTCNanos from: Int64, toUTCNanos to: Int64, skip: Int, limit: Int) -> (samples: [RecordedSample], more: Bool) {
        let files = files(fromUTCNanos: from, toUTCNanos: to)
        var toSkip = max(0, skip)
        var out: [RecordedSample] = []
        out.reserveCapacity(min(max(0, limit), 4096))
        guard limit > 0 else { return (out, !files.isEmpty) }
        for (i, f) in files.enumerated() {
            // A file wholly inside the range contributes exactly its sample count.
            if toSkip > 0, let first = f.firstUTCNanos, let last = f.lastUTCNanos,
               first >= from, last < to, f.samples <= toSkip, !f.isBeingWritten {
                toSkip -= f.samples
                continue
            }
            guard let reader = try? RecordingFileReader(path: f.path) else { continue }  // removed meanwhile
            let offset = reader.header.utcOffsetNanos
            while let s = reader.next() {
                let utc = Int64(bitPattern: s.timestampNanos) &+ offset
                guard utc >= from, utc < to else { continue }
                if toSkip > 0 { toSkip -= 1; continue }
                if out.count == limit { return (out, true) }
                out.append(RecordedSample(utcNanos: utc, sample: s))
            }
            if out.count == limit {
                return (out, files[(i + 1)...].contains { $0.samples > 0 })
            }
        }
        return (out, false)
    }
}
