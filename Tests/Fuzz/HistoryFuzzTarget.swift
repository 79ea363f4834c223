// libFuzzer target: the activity-history reader (`ActivityHistoryStore` opening a damaged or
// hostile `history.sqlite`: SQLite's own parser, quick_check, moving a corrupt file aside, and
// every query). Built and run by scripts/fuzz (swiftc -sanitize=fuzzer); not part of the package.
#if canImport(Glibc)
import Glibc
#endif
import Logging

private let directory: String = {
    Logger.threshold = .critical   // corrupt files are the point here; keep the output to libFuzzer's
    // tmpfs when there is one: SQLite's fsyncs would otherwise dominate each run.
    let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    var template = Array((base + "/edgemotion-fuzz-history-XXXXXX").utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHistory(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let path = directory + "/" + ActivityHistoryStore.fileName
    // A fresh directory state per input: the database only (no WAL), plus any file moved aside.
    for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    if let d = opendir(directory) {
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix(ActivityHistoryStore.fileName + ".corrupt") { unlink(directory + "/" + name) }
        }
        closedir(d)
    }
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return 0 }
    _ = write(fd, data, size)
    close(fd)
    guard let store = try? ActivityHistoryStore(directory: directory, logger: Logger(label: "fuzz")) else { return 0 }
    _ = try? store.activities(from: -1e12, to: 1e12, pageSize: 100)
    _ = try? store.pedometer(from: -1e12, to: 1e12, pageSize: 100)
    _ = try? store.pedometerTotals(from: -1e12, to: 1e12)
    return 0
}
