#if canImport(Glibc)
import Glibc
#endif
import Logging
import Platform

/// An append-only, checksummed file of messages that must not be lost (events, see `SpoolFormat`),
/// kept until the broker acknowledged them.
///
/// Opening a spool replays it: every message record without a matching ack record is returned in
/// `recovered`, in the order it was appended. A record whose CRC does not match, or whose length
/// runs past the end of the file (a write torn by a crash or power cut), is skipped and counted in
/// `corruptRecords` — never a crash — and reading resynchronises on the next intact record
/// (`SpoolReader`). Damage before the end keeps the file as `<path>.corrupt`; a file with a
/// damaged header is moved aside there and a new spool started. After damage, the file is
/// rewritten with the intact pending records only.
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
    /// Bytes inside the damaged stretches skipped when the spool was opened.
    public private(set) var skippedBytes = 0
    /// Where the damaged file was kept when the spool was opened (`<path>.corrupt`), if it was.
    public private(set) var keptCorruptCopy: String?
    /// Append or sync failures since opening (the messages stay in memory and are still delivered).
    public private(set) var writeFailures = 0
    /// Why the last write failed, until a write succeeds again (for `health`).
    public private(set) var writeProblem: String?

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
        // The whole state directory path, like every store (never a silent in-memory downgrade
        // because a parent is missing).
        do throws(DirectoryPath.Failure) { try DirectoryPath.create(DirectoryPath.parent(of: path)) } catch {
            var e = SpoolError(path: path, operation: "create its directory", errno: error.errno)
            e.hint = error.description + "; create state_directory or choose a writable one"
            throw e
        }
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
            log.warning("spool damaged; skipped the unreadable stretches and recovered every intact record after them",
                        ["path": path, "skipped_records": String(corruptRecords), "skipped_bytes": String(skippedBytes),
                         "recovered": String(recovered.count), "damaged_copy": keptCorruptCopy ?? "none (torn tail only)"])
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
    /// needs rewriting (damage found). Damage in the middle (not only a torn tail) keeps a copy of
    /// the file as `<path>.corrupt` (a hard link to the old inode, which the rewrite replaces).
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
        let scan = bytes.withUnsafeBytes { SpoolReader.scan($0) }
        guard scan.headerValid else {
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
        recovered = scan.pending
        nextID = scan.nextID
        corruptRecords = scan.skippedRecords
        skippedBytes = scan.skippedBytes
        fileBytes = got
        let damaged = scan.skippedRecords > 0
        if damaged && !scan.onlyTornTail {
            let aside = path + ".corrupt"
            unlink(aside)
            if link(path, aside) == 0 {
                keptCorruptCopy = aside
            } else {
                log.error("cannot keep a copy of the damaged spool", ["path": aside, "error": Errno.current.text])
            }
        }
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
        if let error = FileDescriptor(rawValue: fd).writeAll(record) {
            writeFailures += 1
            // Cut off what was written of this record so the file stays parseable.
            ftruncate(fd, off_t(fileBytes)); lseek(fd, off_t(fileBytes), SEEK_SET)
            let failure = SpoolError(path: path, operation: "write", errno: error.code)
            writeProblem = failure.description
            throw failure
        }
        writeProblem = nil
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

    /// Whether the file at `path` is no longer the one this spool writes: deleted (link count 0, or
    /// no file at `path`), or renamed away and replaced by another file. Two system calls
    /// (`fstat`, `stat`); the outbox calls it before each batch of writes and once a second.
    public func isDetached() -> Bool {
        var own = stat()
        guard fstat(fd, &own) == 0 else { return true }
        if own.st_nlink == 0 { return true }
        var named = stat()
        guard stat(path, &named) == 0 else { return true }
        return named.st_ino != own.st_ino || named.st_dev != own.st_dev
    }

    /// Times the file had to be recreated because it was deleted or replaced while running.
    public private(set) var recreations = 0

    /// Recreates a detached spool (see `isDetached`) with `pending` — every message not yet
    /// acknowledged, oldest first — creating the directory again if it went too. Warns once per
    /// run (later recreations are logged at notice level) and counts `recreations`.
    public func reattach(keeping pending: [SpoolEntry]) throws(SpoolError) {
        recreations += 1
        if recreations == 1 {
            log.warning("the spool file was deleted or replaced while running; recreated it with every unacknowledged event",
                        ["path": path, "rewritten_events": String(pending.count)])
        } else {
            log.notice("the spool file was deleted or replaced again; recreated it",
                       ["path": path, "rewritten_events": String(pending.count), "times": String(recreations)])
        }
        do throws(DirectoryPath.Failure) { try DirectoryPath.create(DirectoryPath.parent(of: path)) } catch {
            var e = SpoolError(path: path, operation: "create its directory", errno: error.errno)
            e.hint = error.description
            writeFailures += 1
            throw e
        }
        do throws(SpoolError) { try rewrite(keeping: pending) } catch {
            writeFailures += 1
            throw error
        }
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
        if let error = FileDescriptor(rawValue: t).writeAll(bytes) {
            close(t)
            unlink(tmp)
            throw SpoolError(path: tmp, operation: "write", errno: error.code)
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
