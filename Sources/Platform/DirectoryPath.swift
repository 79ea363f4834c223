#if canImport(Glibc)
import Glibc
#endif

/// `mkdir -p` for the agent's stores (spool, activity history, recordings): one home for how a
/// state directory and its missing parents are made.
public enum DirectoryPath {
    /// The default mode of a state directory: owner rwx, group r-x, nothing for others.
    public static let stateMode: mode_t = 0o750

    /// A directory could not be created: which component, and the system's reason.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The path component that could not be created (or exists and is not a directory).
        public var path: String
        public var errno: Int32
        public var description: String {
            "cannot create directory \(path): \(Errno(errno))"
        }
    }

    /// Creates `path` and every missing parent with `mode` (existing ones are left as they are).
    /// - Throws: `Failure` naming the first component that cannot be created, or that exists and
    ///   is not a directory.
    public static func create(_ path: String, mode: mode_t = stateMode) throws(Failure) {
        var partial = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            partial += "/" + part
            if mkdir(partial, mode) == 0 { continue }
            let e = errno
            var st = stat()
            guard e == EEXIST, stat(partial, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else {
                throw Failure(path: partial, errno: e == EEXIST ? ENOTDIR : e)
            }
        }
    }

    /// The directory part of a file path (`"."` when there is none).
    public static func parent(of file: String) -> String {
        guard let slash = file.lastIndex(of: "/") else { return "." }
        return slash == file.startIndex ? "/" : String(file[..<slash])
    }
}
