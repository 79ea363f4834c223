#if canImport(Glibc)
import Glibc
#endif
import Logging
import MotionCore

/// An append-only, checksummed file of messages that must not be lost (events, see `SpoolFormat`),
/// kept until the broker acknowledged them.
///
/// Opening a spool replays it: every message record without a matching ack record is returned in
/// `recovered`, in the order it was appended. A record whose CRC does not match, or whose length
/// runs past the end of the file (a write torn by a crash or power cut), is skipped and counted in
/// `corruptRecords` — never a crash. A file with a damaged header is moved aside as
/// `<path>.corrupt` and a new spool started. After damage, the file is rewritten with the intact
/// pending records only.
///
/// Not thread-safe: one owner (the outbox's pump thread) calls every method.
public final class EventSpool {
    public let path: String
    public let fsyncPolicy: SpoolFsyncPolicy
    /// Unacknowledged messages found when the spool was opened, oldest first.
    public private(set) var recovered: [SpoolEntry] = []
    /// Records found damaged when the spool was opened (torn tail, CRC mismatch, bad header).
    public private(set) var corruptRecords = 0
    /// Current size of the file, bytes.
    public private(set) var fileBytes = 0
    /// Append or sync failures since opening (the messages stay in memory and are still delivered).
    public private(set) var writeFailures = 0

    private var fd: Int32
    private var nextID: UInt64 = 1
    private var dirty = false
    private var lastSyncNanos: UInt64 = 0
    private let log = Logger(label: "spool")

    /// Opens (creating if needed) and replays the spool at `path`.
    /// - Throws: `SpoolError` when the file cannot be opened or created.
    public init(path: String, fsync: SpoolFsyncPolicy) throws(SpoolError) {
        self.path = path
        self.fsyncPolicy = fsync
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SpoolError(path: path, operation: "open", errno: errno) }
        // One process per spool: a second agent on the same state directory would interleave records.
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let e = errno
            close(fd)
            var error = SpoolError(path: path, operation: "lock", errno: e)
            error.hint = "another process (a second edgemotion?) uses this spool; give each agent its own state_directory"
            throw error
        }
        let damaged = load()
        if damaged {
            log.warning("spool damaged; skipped unreadable records and kept the intact ones",
                        ["path": path, "corrupt_records": String(corruptRecords), "recovered": String(recovered.count)])
            do throws(SpoolError) { try rewrite(keeping: recovered) } catch {
                log.error("cannot rewrite the damaged spool", ["error": error.description])
            }
        }
        if !recovered.isEmpty {
            log.notice("replaying unacknowledged events from the spool", ["path": path, "count": String(recovered.count)])
        }
    }

    deinit {
        if dirty, fsyncPolicy != .never { _ = Glibc.fsync(fd) }
        close(fd)
    }

    /// Reads the whole file, fills `recovered`, `nextID`, `corruptRecords`. Returns whether the file
    /// needs rewriting (damage found or a fresh header needed).
    private func load() -> Bool {
        var st = stat()
        fstat(fd, &st)
        let size = Int(st.st_size)
        if size == 0 {
            writeHeader()
            return false
        }
        var bytes = [UInt8](repeating: 0, count: size)
        var got = 0
        while got < size {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, size - got, off_t(got)) }
            if n <= 0 { break }
            got += n
        }
        bytes.removeLast(size - got)
        guard got >= SpoolFormat.magic.count, Array(bytes[0..<SpoolFormat.magic.count]) == SpoolFormat.magic else {
            // Not our file or the header itself is damaged: keep it for inspection, start afresh.
            corruptRecords += 1
            let aside = path + ".corrupt"
            rename(path, aside)
            close(fd)
            fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            flock(fd, LOCK_EX | LOCK_NB)
            log.error("spool header unreadable; moved the file aside and started a new spool", ["path": path, "moved_to": aside])
            writeHeader()
            return false
        }
        var pending: [UInt64: SpoolEntry] = [:]
        var order: [UInt64] = []
        var damaged = false
        var offset = SpoolFormat.magic.count
        bytes.withUnsafeBytes { p in
            while offset < got {
                guard offset + SpoolFormat.recordHeaderBytes <= got else { corruptRecords += 1; damaged = true; break }
                let length = Int(SpoolFormat.readUInt(p, at: offset, bytes: 4))
                let crc = UInt32(SpoolFormat.readUInt(p, at: offset + 4, bytes: 4))
                let bodyStart = offset + SpoolFormat.recordHeaderBytes
                guard length >= SpoolFormat.ackBodyBytes, length <= SpoolFormat.maximumBodyBytes, bodyStart + length <= got else {
                    // Torn tail (or a corrupt length, after which nothing can be trusted).
                    corruptRecords += 1
                    damaged = true
                    break
                }
                let body = UnsafeRawBufferPointer(rebasing: p[bodyStart..<bodyStart + length])
                offset = bodyStart + length
                guard CRC32.checksum(body) == crc else {
                    corruptRecords += 1
                    damaged = true
                    continue
                }
                let kind = body[0]
                let id = SpoolFormat.readUInt(body, at: 1, bytes: 8)
                nextID = max(nextID, id &+ 1)
                switch kind {
                case SpoolFormat.kindAck:
                    pending[id] = nil
                case SpoolFormat.kindMessage where length >= SpoolFormat.messageBodyFixedBytes:
                    let topicLength = Int(SpoolFormat.readUInt(body, at: 11, bytes: 2))
                    let topicStart = SpoolFormat.messageBodyFixedBytes
                    guard topicStart + topicLength <= length else { corruptRecords += 1; damaged = true; continue }
                    let topic = String(decoding: body[topicStart..<topicStart + topicLength], as: UTF8.self)
                    let payload = Array(body[(topicStart + topicLength)...])
                    if pending[id] == nil { order.append(id) }
                    pending[id] = SpoolEntry(id: id, topic: topic, payload: payload, qos: Int(body[9]), retain: body[10] != 0)
                default:
                    corruptRecords += 1
                    damaged = true
                }
            }
        }
        recovered = order.compactMap { pending[$0] }
        fileBytes = got
        if !damaged { lseek(fd, off_t(got), SEEK_SET) }
        return damaged
    }

    private func writeHeader() {
        _ = SpoolFormat.magic.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        fileBytes = SpoolFormat.magic.count
        lseek(fd, off_t(fileBytes), SEEK_SET)
        dirty = true
    }

    /// Appends a message and returns its entry (with its new id). Flushes per the fsync policy.
    /// - Throws: `SpoolError` when the write fails (disk full, I/O error); the caller keeps the
    ///   message in memory.
    public func append(topic: String, payload: [UInt8], qos: Int, retain: Bool) throws(SpoolError) -> SpoolEntry {
        let entry = SpoolEntry(id: nextID, topic: topic, payload: payload, qos: qos, retain: retain)
        nextID &+= 1
        try write(SpoolFormat.messageRecord(entry))
        return entry
    }

    /// Records that message `id` was acknowledged; it will not be replayed.
    public func acknowledge(id: UInt64) throws(SpoolError) {
        try write(SpoolFormat.ackRecord(id: id))
    }

    private func write(_ record: [UInt8]) throws(SpoolError) {
        var done = 0
        while done < record.count {
            let n = record.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, record.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                let e = errno
                writeFailures += 1
                // Cut off what was written of this record so the file stays parseable.
                if done > 0 { ftruncate(fd, off_t(fileBytes)); lseek(fd, off_t(fileBytes), SEEK_SET) }
                throw SpoolError(path: path, operation: "write", errno: e)
            }
            done += n
        }
        fileBytes += record.count
        dirty = true
        switch fsyncPolicy {
        case .always: try sync()
        case .interval, .never: break
        }
    }

    /// Flushes to stable storage if the policy asks for it now (`interval`: when the interval has
    /// passed since the last flush). Call periodically.
    public func syncIfDue() {
        guard dirty, case .interval(let ms) = fsyncPolicy else { return }
        let now = MonotonicClock.nowNanos()
        if now &- lastSyncNanos >= UInt64(max(0, ms)) * 1_000_000 { try? sync() }
    }

    /// `fsync` now (unless the policy is `never`).
    public func sync() throws(SpoolError) {
        guard dirty, fsyncPolicy != .never else { return }
        lastSyncNanos = MonotonicClock.nowNanos()
        dirty = false
        if Glibc.fsync(fd) != 0 {
            writeFailures += 1
            throw SpoolError(path: path, operation: "fsync", errno: errno)
        }
    }

    /// Rewrites the file with only `pending` (unacknowledged, oldest first): to a temporary file,
    /// `fsync`, then `rename` over the spool, so a crash leaves either the old or the new file.
    public func rewrite(keeping pending: [SpoolEntry]) throws(SpoolError) {
        let tmp = path + ".tmp"
        let t = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard t >= 0 else { throw SpoolError(path: tmp, operation: "open", errno: errno) }
        var bytes = SpoolFormat.magic
        for e in pending { bytes += SpoolFormat.messageRecord(e) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(t, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                let e = errno
                close(t)
                unlink(tmp)
                throw SpoolError(path: tmp, operation: "write", errno: e)
            }
            done += n
        }
        if fsyncPolicy != .never { _ = Glibc.fsync(t) }
        guard rename(tmp, path) == 0 else {
            let e = errno
            close(t)
            throw SpoolError(path: path, operation: "rename", errno: e)
        }
        flock(t, LOCK_EX | LOCK_NB)
        close(fd)
        fd = t
        lseek(fd, off_t(bytes.count), SEEK_SET)
        fileBytes = bytes.count
        dirty = false
        lastSyncNanos = MonotonicClock.nowNanos()
    }
}
