/// Why the history database refused an operation. `description` names the file and what to do.
public struct HistoryError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Hashable {
        /// The file is not a database or failed its integrity check.
        case corrupt
        /// The disk (or the database's size limit) is full.
        case full
        /// The directory or file cannot be created, opened, read or written.
        case io
        /// A query was malformed (bad range, page size…).
        case invalidQuery
        /// Any other SQLite failure.
        case sqlite
    }

    public var kind: Kind
    /// SQLite's result code, 0 when not from SQLite.
    public var code: Int32
    public var description: String

    public init(_ kind: Kind, code: Int32 = 0, _ description: String) {
        self.kind = kind
        self.code = code
        self.description = description
    }
}
