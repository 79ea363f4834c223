import Foundation

/// A real, small file system for disk-full tests: a tmpfs of `kilobytes` mounted on a fresh
/// directory (needs root; `isAvailable` says whether mounting works here). `fill()` writes a
/// filler file until the kernel answers ENOSPC; `makeRoom()` deletes it.
public final class SmallFileSystem: @unchecked Sendable {
    // @unchecked Sendable: `path` is immutable; the filler is only touched by the test's thread.
    public let path: String
    private var fillerPath: String { path + "/.filler" }

    public static let isAvailable: Bool = {
        guard getuid() == 0 else { return false }
        guard let fs = try? SmallFileSystem(kilobytes: 64) else { return false }
        fs.unmount()
        return true
    }()

    public init(kilobytes: Int) throws {
        var template = Array((NSTemporaryDirectory() + "edgemotion-smallfs-XXXXXX").utf8CString)
        guard let p = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw MosquittoBrokerError("mkdtemp failed: errno \(errno)")
        }
        path = String(cString: p)
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(kilobytes)k,mode=0755") == 0 else {
            let e = errno
            rmdir(path)
            throw MosquittoBrokerError("mount -t tmpfs on \(path) failed: \(String(cString: strerror(e)))")
        }
    }

    /// Writes zeros until the file system is full (ENOSPC). Returns the bytes written.
    @discardableResult
    public func fill() -> Int {
        let fd = open(fillerPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        let block = [UInt8](repeating: 0, count: 4096)
        var total = 0
        var size = 4096
        while size >= 1 {
            let n = block.withUnsafeBytes { write(fd, $0.baseAddress, size) }
            if n > 0 { total += n } else { size /= 2 }
        }
        return total
    }

    /// Frees what `fill()` took.
    public func makeRoom() { unlink(fillerPath) }

    public func unmount() {
        umount2(path, Int32(MNT_DETACH))
        rmdir(path)
    }

    deinit { unmount() }
}
