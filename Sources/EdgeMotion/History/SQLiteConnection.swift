import CSQLite

/// A thin owner of one `sqlite3*` handle: the only place the history touches the C API.
/// Not thread-safe; `ActivityHistoryStore` serialises access.
final class SQLiteConnection {
    let path: String
    private(set) var handle: OpaquePointer?

    init(path: String) throws(HistoryError) {
        self.path = path
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw Self.error(rc, "cannot open \(path): \(message)")
        }
        handle = db
        sqlite3_busy_timeout(db, 2000)
        sqlite3_extended_result_codes(db, 0)
    }

    deinit { close() }

    func close() {
        if let h = handle { sqlite3_close_v2(h) }
        handle = nil
    }

    static func error(_ rc: Int32, _ message: String) -> HistoryError {
        switch rc & 0xff {
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return HistoryError(.corrupt, code: rc, message + "; the file is moved aside and a fresh database started")
        case SQLITE_FULL:
            return HistoryError(.full, code: rc, message + "; free space on the state directory's file system")
        case SQLITE_CANTOPEN, SQLITE_IOERR, SQLITE_READONLY, SQLITE_PERM:
            return HistoryError(.io, code: rc, message + "; check the state directory exists and is writable")
        default:
            return HistoryError(.sqlite, code: rc, message)
        }
    }

    private func fail(_ rc: Int32, _ what: String) -> HistoryError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed"
        return Self.error(rc, "\(path): \(what): \(message)")
    }

    /// Runs one or more statements without results.
    func execute(_ sql: String) throws(HistoryError) {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw fail(rc, sql.prefix(60).description) }
    }

    /// Prepares, binds and steps `sql`, calling `row` for every result row.
    func query(_ sql: String, _ bindings: [Binding] = [], row: (Statement) throws(HistoryError) -> Void = { _ in }) throws(HistoryError) {
        var stmt: OpaquePointer?
        var rc = sqlite3_prepare_v2(handle, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw fail(rc, "prepare \(sql.prefix(60))") }
        defer { sqlite3_finalize(stmt) }
        for (i, b) in bindings.enumerated() {
            let k = Int32(i + 1)
            switch b {
            case .int(let v): rc = sqlite3_bind_int64(stmt, k, v)
            case .double(let v): rc = sqlite3_bind_double(stmt, k, v)
            case .text(let v): rc = sqlite3_bind_text(stmt, k, v, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            case .null: rc = sqlite3_bind_null(stmt, k)
            }
            guard rc == SQLITE_OK else { throw fail(rc, "bind \(k)") }
        }
        while true {
            rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else { throw fail(rc, sql.prefix(60).description) }
            try row(Statement(handle: stmt))
        }
    }

    /// A scalar text result (PRAGMA integrity_check, journal_mode).
    func text(_ sql: String) throws(HistoryError) -> String {
        var out = ""
        try query(sql) { (s: Statement) throws(HistoryError) in if out.isEmpty { out = s.text(0) } }
        return out
    }

    enum Binding {
        case int(Int64)
        case double(Double)
        case text(String)
        case null
    }

    /// The current row of a stepping statement.
    struct Statement {
        let handle: OpaquePointer
        func int(_ i: Int32) -> Int64 { sqlite3_column_int64(handle, i) }
        func double(_ i: Int32) -> Double { sqlite3_column_double(handle, i) }
        func isNull(_ i: Int32) -> Bool { sqlite3_column_type(handle, i) == SQLITE_NULL }
        func text(_ i: Int32) -> String {
            guard let p = sqlite3_column_text(handle, i) else { return "" }
            return String(cString: p)
        }
    }
}
