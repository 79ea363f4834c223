#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The one place a formatted log line is written: standard error (fd 2), unchanged, and, while
/// a test's `capturing` scope runs, a copy to that capture as well.
///
/// Tests read the lines the process itself logs through `capturing` instead of redirecting fd 2.
/// Lines from every thread are captured (other suites' lines written meanwhile too). Logging is
/// never on the per-sample path; without a capture a line costs one atomic load more.
package enum LogSink {
    /// How many `capturing` scopes are open; zero: no lock is taken.
    private static let openCaptures = Atomic<Int>(0)
    /// The open captures' lines (without the trailing newline), by scope.
    private static let captures = Mutex<[UInt64: [String]]>([:])
    private static let nextCapture = Atomic<UInt64>(0)

    /// Writes `line` (ending in `\n`) to fd 2, and to every open capture.
    static func write(_ line: String) {
        line.utf8CString.withUnsafeBufferPointer { buf in
            _ = Glibc.write(2, buf.baseAddress, buf.count - 1)
        }
        guard openCaptures.load(ordering: .acquiring) > 0 else { return }
        let text = line.hasSuffix("\n") ? String(line.dropLast()) : line
        captures.withLock { open in
            for key in open.keys { open[key]!.append(text) }
        }
    }

    /// Runs `body` and returns what it returned with the log lines written (by any thread) while
    /// it ran, without their newline. The lines still go to standard error. Scopes may overlap
    /// (each gets every line written while it is open).
    package static func capturing<T>(_ body: () throws -> T) rethrows -> (result: T, lines: [String]) {
        let key = nextCapture.add(1, ordering: .relaxed).newValue
        captures.withLock { $0[key] = [] }
        openCaptures.add(1, ordering: .releasing)
        defer {
            openCaptures.subtract(1, ordering: .releasing)
            _ = captures.withLock { $0.removeValue(forKey: key) }
        }
        let result = try body()
        return (result, captures.withLock { $0[key] ?? [] })
    }
}
