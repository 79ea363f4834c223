#if canImport(Glibc)
import Glibc
#endif
import Platform

/// Why a small file (configuration, calibration, secret, prediction) could not be read or written whole.
struct FileError: Error, CustomStringConvertible, Equatable {
    /// The `errno` of the failing `open`/`read`, or `nil` when the file is larger than allowed.
    let code: Int32?
    /// The size limit that was exceeded, bytes (when `code` is nil).
    let limit: Int
    /// The path is a directory, FIFO, socket or device, not a regular file (nothing was read).
    var notRegular = false

    /// True when the file does not exist (as opposed to existing but unreadable).
    /// The file is not there (ENOENT), or a component of its path is not a directory (ENOTDIR),
    /// so it cannot be: the caller treats it as never written.
    var isMissing: Bool { code == ENOENT || code == ENOTDIR }

    /// `strerror` text, e.g. "Permission denied", or "file is larger than 1 MiB".
    var description: String {
        if notRegular { return "not a regular file (a directory, FIFO, socket or device); give the path of a file" }
        if let code { return Errno(code).text }
        return limit % (1 << 20) == 0 ? "file is larger than \(limit >> 20) MiB" : "file is larger than \(limit) bytes"
    }
}

/// Reads small files in one go, through `open`/`read` (no Foundation), retrying `EINTR` and
/// refusing files over a size limit, so a wrong path (a log) cannot exhaust memory, and anything
/// but a regular file (or a symbolic link to one), so a FIFO or a device cannot block or flood
/// the reader: the open does not wait (`O_NONBLOCK`) and nothing is read from it.
enum WholeFile {
    /// The file's bytes.
    static func bytes(atPath path: String, limit: Int = 1 << 20) throws(FileError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw FileError(code: errno, limit: limit) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileError(code: errno, limit: limit) }
        guard info.st_mode & 0o170000 == 0o100000 else {  // S_IFMT, S_IFREG
            throw FileError(code: nil, limit: limit, notRegular: true)
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let file = FileDescriptor(rawValue: fd)
        while true {
            let n: Int
            do throws(Errno) { n = try file.read(into: &chunk) } catch { throw FileError(code: error.code, limit: limit) }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count > limit { throw FileError(code: nil, limit: limit) }
        }
    }

    /// The file's text (UTF-8; invalid sequences replaced).
    static func text(atPath path: String, limit: Int = 1 << 20) throws(FileError) -> String {
        String(decoding: try bytes(atPath: path, limit: limit), as: UTF8.self)
    }

    /// Writes `text` to `path.tmp`, flushes it to disk and renames it over `path`, so readers
    /// never see half a file. Throws the `errno` of the step that failed (the temporary is removed).
    ///
    /// When `path` exists and is not a regular file (`/dev/null`, `/dev/stdout`, a FIFO, or a
    /// symbolic link to one), the text is written into it directly: renaming over it would replace
    /// the device node with a regular file.
    static func write(_ text: String, atomicallyTo path: String) throws(FileError) {
        if isSpecialFile(path) {
            try write(text, inPlace: path)
            return
        }
        let tmp = path + ".tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileError(code: errno, limit: 0) }
        // Retries EINTR and short writes; a 0-byte write is EIO.
        var failure: Int32? = FileDescriptor(rawValue: fd).writeAll(Array(text.utf8))?.code
        if failure == nil, fsync(fd) != 0 { failure = errno }
        close(fd)
        if failure == nil, rename(tmp, path) != 0 { failure = errno }
        if let failure {
            unlink(tmp)
            throw FileError(code: failure, limit: 0)
        }
    }

    /// Whether `path` exists (following symbolic links) and is anything but a regular file.
    private static func isSpecialFile(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let mode: UInt32 = info.st_mode
        let kind: UInt32 = mode & 0o170000     // S_IFMT
        let regular: UInt32 = 0o100000         // S_IFREG
        return kind != regular
    }

    /// Writes `text` into an existing device or FIFO (no temporary, no rename, no fsync).
    private static func write(_ text: String, inPlace path: String) throws(FileError) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError(code: errno, limit: 0) }
        defer { close(fd) }
        if let error = FileDescriptor(rawValue: fd).writeAll(Array(text.utf8)) {
            throw FileError(code: error.code, limit: 0)
        }
    }
}
