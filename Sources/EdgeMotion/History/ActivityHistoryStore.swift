#if canImport(Glibc)
import Glibc
#endif
import Platform
import CSQLite
import Logging
import MotionCore
import Synchronization

/// Core Motion's 7-day activity and pedometer history, in an SQLite database (WAL mode) in the
/// agent's state directory.
///
/// - Durability: WAL with `synchronous=NORMAL` — a crash or SIGKILL never corrupts the file, and at
///   most the last transactions before a power cut are lost.
/// - Corruption: a file that is not a database or fails `PRAGMA quick_check` is renamed to
///   `history.sqlite.corrupt-<UTC time>` (kept for inspection), reported in the log and in
///   `recoveredCorruptFile`, and a fresh database is started.
/// - Full disk: the write fails with `HistoryError.Kind.full`, is counted in `diskFullCount`,
///   logged once, and kept in memory (`HistoryBacklog`, bounded) to be written — in order —
///   when space returns (`retryPending()` or the next write); detection and publishing go on.
/// - Retention: rows older than `retention` seconds are deleted by `prune`, which `record` also
///   runs at most once an hour.
/// Thread-safe (one connection behind a mutex).
public final class ActivityHistoryStore: @unchecked Sendable {
    public static let fileName = "history.sqlite"
    /// Largest page a query may ask for.
    public static let maximumPageSize = 10_000

    public let directory: String
    public let path: String
    /// Seconds of history kept (Core Motion keeps 7 days).
    public let retention: Double
    /// Where a corrupt database was moved at open, if it was.
    public private(set) var recoveredCorruptFile: String?

    private let logger: Logger
    private let lock = Mutex(())
    private var connection: SQLiteConnection
    private var lastPrune = 0.0
    private let diskFull = Atomic<Int>(0)
    /// Writes refused and kept for retry (under `lock`).
    private var backlog = HistoryBacklog()
    private let backlogWarned = Atomic<Bool>(false)
    private let writeFailures = Atomic<Int>(0)

    /// Writes refused because the disk was full, since open.
    public var diskFullCount: Int { diskFull.load(ordering: .relaxed) }
    /// Writes that failed for any reason (full disk included), since open.
    public var writeFailureCount: Int { writeFailures.load(ordering: .relaxed) }

    /// Opens (creating when needed) `directory/history.sqlite`. `retention` in seconds.
    public init(directory: String, retention: Double = 7 * 86_400, logger: Logger = Logger(label: "history")) throws(HistoryError) {
        guard retention > 0 else { throw HistoryError(.invalidQuery, "history retention must be > 0 s (got \(retention))") }
        self.directory = directory
        self.path = directory + "/" + Self.fileName
        self.retention = retention
        self.logger = logger
        try Self.makeDirectory(directory)
        do {
            connection = try Self.openChecked(path)
        } catch where error.kind == .corrupt {
            let aside = try Self.moveAside(path)
            logger.warning("corrupt history database moved aside", ["path": path, "moved_to": aside, "error": error.description])
            recoveredCorruptFile = aside
            connection = try Self.openChecked(path)
        }
    }

    private static func makeDirectory(_ dir: String) throws(HistoryError) {
        do throws(DirectoryPath.Failure) { try DirectoryPath.create(dir) } catch {
            throw HistoryError(.io, "cannot create state directory: \(error.description); choose a writable --state-dir")
        }
    }

    private static func openChecked(_ path: String) throws(HistoryError) -> SQLiteConnection {
        let c = try SQLiteConnection(path: path)
        let mode = try c.text("PRAGMA journal_mode=WAL")
        guard mode.lowercased() == "wal" else {
            throw HistoryError(.io, "\(path): could not enable WAL mode (journal_mode=\(mode)); the file system may not support it")
        }
        try c.execute("PRAGMA synchronous=NORMAL")
        let check = try c.text("PRAGMA quick_check")
        guard check == "ok" else { throw HistoryError(.corrupt, "\(path): quick_check reports '\(check)'") }
        try c.execute("""
            CREATE TABLE IF NOT EXISTS activity (
                id INTEGER PRIMARY KEY,
                start REAL NOT NULL,
                stationary INTEGER NOT NULL, walking INTEGER NOT NULL, running INTEGER NOT NULL,
                cycling INTEGER NOT NULL, automotive INTEGER NOT NULL, unknown INTEGER NOT NULL,
                confidence INTEGER NOT NULL,
                previous_duration REAL NOT NULL);
            CREATE INDEX IF NOT EXISTS activity_start ON activity(start);
            CREATE TABLE IF NOT EXISTS pedometer (
                id INTEGER PRIMARY KEY,
                start REAL NOT NULL, end REAL NOT NULL,
                steps INTEGER NOT NULL, distance REAL NOT NULL,
                floors_ascended INTEGER, floors_descended INTEGER);
            CREATE INDEX IF NOT EXISTS pedometer_start ON pedometer(start);
            """)
        return c
    }

    /// Renames the database (and its -wal/-shm files) to `<path>.corrupt-<UTC>`; returns the new path.
    private static func moveAside(_ path: String) throws(HistoryError) -> String {
        let stamp = RFC3339.basicStamp(unixSeconds: Int64(time(nil)))
        var target = "\(path).corrupt-\(stamp)"
        var n = 1
        while access(target, F_OK) == 0 {
            target = "\(path).corrupt-\(stamp)-\(n)"
            n += 1
        }
        guard rename(path, target) == 0 else {
            throw HistoryError(.io, "cannot move corrupt \(path) aside to \(target): \(Errno.current.text)")
        }
        for suffix in ["-wal", "-shm"] where access(path + suffix, F_OK) == 0 {
            _ = rename(path + suffix, target + suffix)
        }
        return target
    }

    private func write(_ body: (SQLiteConnection) throws(HistoryError) -> Void) throws(HistoryError) {
        do {
            try lock.withLock { _ throws(HistoryError) in try body(connection) }
        } catch {
            writeFailures.wrappingAdd(1, ordering: .relaxed)
            if error.kind == .full {
                let n = diskFull.wrappingAdd(1, ordering: .relaxed).newValue
                logger.warning("history write refused: disk full", ["path": path, "count": "\(n)"])
            } else {
                logger.error("history write failed", ["path": path, "error": error.description])
            }
            throw error
        }
    }

    /// Writes `w`, after any earlier writes still pending. A refused write is kept (bounded, in
    /// order) and retried later — `retryPending()` or the next write — and still throws, so the
    /// caller knows it is not on disk yet. One log line when writes start failing, one when they
    /// are all on disk again.
    private func submit(_ w: HistoryWrite) throws(HistoryError) {
        let (failure, recovered) = lock.withLock { _ -> (HistoryError?, Int) in
            let before = backlog.count
            if let e = backlog.flush({ (p: HistoryWrite) throws(HistoryError) in try Self.insert(p, into: connection) }) {
                backlog.keep(w, because: e)
                return (e, 0)
            }
            do throws(HistoryError) { try Self.insert(w, into: connection) } catch {
                backlog.keep(w, because: error)
                return (error, before)
            }
            return (nil, before)
        }
        if recovered > 0 { logger.notice("history writes resumed; the kept writes are on disk", ["path": path, "written": "\(recovered)"]) }
        guard let failure else { return }
        writeFailures.wrappingAdd(1, ordering: .relaxed)
        if failure.kind == .full { diskFull.wrappingAdd(1, ordering: .relaxed) }
        if !backlogWarned.exchange(true, ordering: .relaxed) {
            logger.warning("history writes refused; keeping them in memory and retrying",
                           ["path": path, "error": failure.description, "kept_at_most": "\(HistoryBacklog.capacity)"])
        }
        throw failure
    }

    /// Retries the writes kept after a failure (call periodically: the agent does at each stats
    /// tick). Returns how many are still pending.
    @discardableResult
    public func retryPending() -> Int {
        let (written, left) = lock.withLock { _ -> (Int, Int) in
            let before = backlog.count
            guard before > 0 else { return (0, 0) }
            _ = backlog.flush({ (p: HistoryWrite) throws(HistoryError) in try Self.insert(p, into: connection) })
            return (before - backlog.count, backlog.count)
        }
        if written > 0 && left == 0 {
            backlogWarned.store(false, ordering: .relaxed)
            logger.notice("history writes resumed; the kept writes are on disk", ["path": path, "written": "\(written)"])
        }
        return left
    }

    /// Writes kept in memory because the database refused them (0 when all is on disk).
    public var pendingWrites: Int { lock.withLock { _ in backlog.count } }
    /// Kept writes discarded because the backlog was full (lost).
    public var discardedWrites: Int { lock.withLock { _ in backlog.discarded } }
    /// Why writes are being kept, while any are (for `health`).
    public var writeProblem: String? { lock.withLock { _ in backlog.reason } }

    private static let insertActivity = """
        INSERT INTO activity(start, stationary, walking, running, cycling, automotive, unknown, confidence, previous_duration)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    private static let insertPedometer =
        "INSERT INTO pedometer(start, end, steps, distance, floors_ascended, floors_descended) VALUES (?, ?, ?, ?, ?, ?)"

    private static func insert(_ w: HistoryWrite, into c: SQLiteConnection) throws(HistoryError) {
        func activity(_ a: MotionActivity, _ utcStart: Double) throws(HistoryError) {
            try c.query(insertActivity, [.double(utcStart), .int(a.stationary ? 1 : 0), .int(a.walking ? 1 : 0),
                                         .int(a.running ? 1 : 0), .int(a.cycling ? 1 : 0), .int(a.automotive ? 1 : 0),
                                         .int(a.unknown ? 1 : 0), .int(Int64(a.confidence.rawValue)),
                                         .double(a.previousDuration)])
        }
        func pedometer(_ p: PedometerRecord) throws(HistoryError) {
            try c.query(insertPedometer, [.double(p.start), .double(p.end), .int(Int64(p.steps)), .double(p.distance),
                                          p.floorsAscended.map { .int(Int64($0)) } ?? .null,
                                          p.floorsDescended.map { .int(Int64($0)) } ?? .null])
        }
        switch w {
        case .activity(let a, let t): try activity(a, t)
        case .pedometer(let p): try pedometer(p)
        case .both(let a, let t, let p):
            try c.execute("BEGIN IMMEDIATE")
            do throws(HistoryError) {
                try activity(a, t)
                try pedometer(p)
                try c.execute("COMMIT")
            } catch {
                try? c.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// Stores an activity change; `utcStart` is its start in UTC seconds since the epoch.
    /// - Throws: when the database refuses it; it is then kept in memory and retried.
    public func record(_ activity: MotionActivity, utcStart: Double) throws(HistoryError) {
        try submit(.activity(activity, utcStart: utcStart))
        try pruneIfDue(now: utcStart)
    }

    /// Stores pedometer totals over one interval.
    /// - Throws: when the database refuses it; it is then kept in memory and retried.
    public func record(_ p: PedometerRecord) throws(HistoryError) {
        try submit(.pedometer(p))
        try pruneIfDue(now: p.end)
    }

    /// Stores an activity change and pedometer totals in one transaction (both or neither).
    /// - Throws: when the database refuses it; it is then kept in memory and retried.
    public func record(_ activity: MotionActivity, utcStart: Double, pedometer p: PedometerRecord) throws(HistoryError) {
        try submit(.both(activity, utcStart: utcStart, p))
    }

    private func pruneIfDue(now: Double) throws(HistoryError) {
        guard now - lastPrune >= 3600 else { return }
        lastPrune = now
        _ = try prune(now: now)
    }

    /// Deletes rows that started more than `retention` seconds before `now` (UTC s); returns how many.
    @discardableResult
    public func prune(now: Double) throws(HistoryError) -> Int {
        let cutoff = now - retention
        var deleted = 0
        try write { (c: SQLiteConnection) throws(HistoryError) in
            try c.query("DELETE FROM activity WHERE start < ?", [.double(cutoff)])
            deleted += Int(sqlite3_changes(c.handle))
            try c.query("DELETE FROM pedometer WHERE end < ?", [.double(cutoff)])
            deleted += Int(sqlite3_changes(c.handle))
        }
        return deleted
    }

    private static func checkRange(_ from: Double, _ to: Double, _ page: Int, _ pageSize: Int) throws(HistoryError) {
        guard from.isFinite, to.isFinite, from <= to else {
            throw HistoryError(.invalidQuery, "range from \(from) to \(to): 'from' must be a time before 'to'")
        }
        guard page >= 0 else { throw HistoryError(.invalidQuery, "page \(page): pages start at 0") }
        guard pageSize >= 1, pageSize <= maximumPageSize else {
            throw HistoryError(.invalidQuery, "page size \(pageSize): use 1–\(maximumPageSize)")
        }
    }

    /// Activity changes that started in `[from, to)` (UTC s), oldest first, `pageSize` per page.
    public func activities(from: Double, to: Double, page: Int = 0, pageSize: Int = 500) throws(HistoryError) -> HistoryPage<ActivityRecord> {
        try Self.checkRange(from, to, page, pageSize)
        var items: [ActivityRecord] = []
        try lock.withLock { _ throws(HistoryError) in
            try connection.query("""
                SELECT start, stationary, walking, running, cycling, automotive, unknown, confidence, previous_duration
                FROM activity WHERE start >= ? AND start < ? ORDER BY start, id LIMIT ? OFFSET ?
                """, [.double(from), .double(to), .int(Int64(pageSize + 1)), .int(Int64(page) * Int64(pageSize))]) { s in
                let a = MotionActivity(
                    stationary: s.int(1) != 0, walking: s.int(2) != 0, running: s.int(3) != 0, cycling: s.int(4) != 0,
                    automotive: s.int(5) != 0, unknown: s.int(6) != 0,
                    confidence: MotionActivityConfidence(rawValue: Int(s.int(7))) ?? .low,
                    startDate: s.double(0), previousDuration: s.double(8))
                items.append(ActivityRecord(activity: a))
            }
        }
        let more = items.count > pageSize
        if more { items.removeLast() }
        return HistoryPage(items: items, page: page, nextPage: more ? page + 1 : nil)
    }

    /// Pedometer intervals that started in `[from, to)` (UTC s), oldest first.
    public func pedometer(from: Double, to: Double, page: Int = 0, pageSize: Int = 500) throws(HistoryError) -> HistoryPage<PedometerRecord> {
        try Self.checkRange(from, to, page, pageSize)
        var items: [PedometerRecord] = []
        try lock.withLock { _ throws(HistoryError) in
            try connection.query("""
                SELECT start, end, steps, distance, floors_ascended, floors_descended FROM pedometer
                WHERE start >= ? AND start < ? ORDER BY start, id LIMIT ? OFFSET ?
                """, [.double(from), .double(to), .int(Int64(pageSize + 1)), .int(Int64(page) * Int64(pageSize))]) { s in
                items.append(PedometerRecord(start: s.double(0), end: s.double(1), steps: Int(s.int(2)), distance: s.double(3),
                                             floorsAscended: s.isNull(4) ? nil : Int(s.int(4)),
                                             floorsDescended: s.isNull(5) ? nil : Int(s.int(5))))
            }
        }
        let more = items.count > pageSize
        if more { items.removeLast() }
        return HistoryPage(items: items, page: page, nextPage: more ? page + 1 : nil)
    }

    /// Sum of the pedometer intervals that started in `[from, to)` (like `queryPedometerData(from:to:)`).
    public func pedometerTotals(from: Double, to: Double) throws(HistoryError) -> PedometerRecord {
        try Self.checkRange(from, to, 0, 1)
        var total = PedometerRecord(start: from, end: to, steps: 0, distance: 0)
        try lock.withLock { _ throws(HistoryError) in
            try connection.query("""
                SELECT COALESCE(SUM(steps), 0), COALESCE(SUM(distance), 0), SUM(floors_ascended), SUM(floors_descended)
                FROM pedometer WHERE start >= ? AND start < ?
                """, [.double(from), .double(to)]) { s in
                total.steps = Int(s.int(0))
                total.distance = s.double(1)
                total.floorsAscended = s.isNull(2) ? nil : Int(s.int(2))
                total.floorsDescended = s.isNull(3) ? nil : Int(s.int(3))
            }
        }
        return total
    }

    /// `PRAGMA integrity_check` result ("ok" when healthy).
    public func integrityCheck() throws(HistoryError) -> String {
        try lock.withLock { _ throws(HistoryError) in try connection.text("PRAGMA integrity_check") }
    }

    /// Caps the database size in pages (tests use it to simulate a full disk).
    public func setMaximumPageCount(_ pages: Int) throws(HistoryError) {
        try lock.withLock { _ throws(HistoryError) in _ = try connection.text("PRAGMA max_page_count=\(pages)") }
    }
}
