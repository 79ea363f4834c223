#if canImport(Glibc)
import Glibc
#endif

/// Where the benchmark finds the read-only shared recordings: `$EDGEMOTION_SHARED` when set,
/// else `<package root>/../shared` of the checkout this binary was built from. nil when neither
/// has a `data` folder (then `--trial FILE` is needed). Read in place, never copied.
enum SharedData {
    static var root: String? {
        if let env = getenv("EDGEMOTION_SHARED").map({ String(cString: $0) }), hasData(env) { return env }
        // This file is <root>/Sources/Benchmarks/SharedData.swift.
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        let candidate = parts.joined(separator: "/") + "/../shared"
        return hasData(candidate) ? candidate : nil
    }

    private static func hasData(_ root: String) -> Bool {
        var st = stat()
        return stat(root + "/data", &st) == 0
    }
}
