/// Locates the project's shared material (`<package root>/../shared`), read-only and never copied
/// into the repository. `nil` when absent, so tests can skip with a clear message.
public enum SharedDataPath {
    public static var root: String? {
        // This file is <root>/Tests/TestSupportPaths/SharedDataPath.swift.
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        let packageRoot = parts.joined(separator: "/")
        let candidate = packageRoot + "/../shared"
        var st = stat()
        return stat(candidate + "/data", &st) == 0 ? candidate : nil
    }
}

#if canImport(Glibc)
import Glibc
#endif
