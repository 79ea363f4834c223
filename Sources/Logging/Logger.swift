#if canImport(Glibc)
import Glibc
#endif
import Platform
import Synchronization

/// Severity of a log event, lowest first.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case trace, debug, info, notice, warning, error, critical

    public var name: String {
        switch self {
        case .trace: "trace"
        case .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .warning: "warning"
        case .error: "error"
        case .critical: "critical"
        }
    }

    public init?(name: String) {
        guard let l = LogLevel.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = l
    }

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}

/// A structured logger: one line per event on standard error (through `LogSink`),
/// `2026-11-30T08:30:26.123Z warning mqtt event="connect failed" host=127.0.0.1 error="…"`.
///
/// Cheap to copy; never used on the per-sample path. The threshold is process-wide
/// (`Logger.threshold`), set once by the CLI's `--log-level`.
public struct Logger: Sendable {
    /// Component name printed on every line (`pipeline`, `mqtt`, `iio`, …).
    public let label: String

    public init(label: String) { self.label = label }

    private static let thresholdStorage = Atomic<Int>(LogLevel.info.rawValue)

    /// Events below this level are discarded.
    public static var threshold: LogLevel {
        get { LogLevel(rawValue: thresholdStorage.load(ordering: .relaxed)) ?? .info }
        set { thresholdStorage.store(newValue.rawValue, ordering: .relaxed) }
    }

    private static let silencedStorage = Atomic<Bool>(false)

    /// When true nothing is logged at any level (a library client's way to keep standard error
    /// quiet: `MotionLogging.isEnabled = false`, `CMMotionLogging.isEnabled = false`).
    public static var isSilenced: Bool {
        get { silencedStorage.load(ordering: .relaxed) }
        set { silencedStorage.store(newValue, ordering: .relaxed) }
    }

    public func isEnabled(_ level: LogLevel) -> Bool { !Logger.isSilenced && level >= Logger.threshold }

    /// Logs `event` with key/value metadata. Values are quoted when they contain spaces or quotes.
    public func log(_ level: LogLevel, _ event: @autoclosure () -> String, _ metadata: KeyValuePairs<String, String> = [:]) {
        guard isEnabled(level) else { return }
        LogSink.write(line(level, event(), metadata))
    }

    /// The line `log` writes for an enabled event, ending in `\n` (whatever the threshold).
    func line(_ level: LogLevel, _ event: String, _ metadata: KeyValuePairs<String, String>) -> String {
        var line = Logger.timestamp()
        line += " " + level.name + " " + label + " event=" + Logger.quote(event)
        for (k, v) in metadata { line += " " + k + "=" + Logger.quote(v) }
        return line + "\n"
    }

    public func trace(_ e: @autoclosure () -> String, _ m: KeyValuePairs<String, String> = [:]) { log(.trace, e(), m) }
    public func debug(_ e: @autoclosure () -> String, _ m: KeyValuePairs<String, String> = [:]) { log(.debug, e(), m) }
    public func info(_ e: @autoclosure () -> String, _ m: KeyValuePairs<String, String> = [:]) { log(.info, e(), m) }
    public func notice(_ e: @autoclosure () -> String, _ m: KeyValuePairs<String, String> = [:]) { log(.notice, e(), m) }
    public func warning(_ e: @autoclosure () -> String, _ m: KeyValuePairs<String, String> = [:]) { log(.warning, e(), m) }
    public func error(_ e: @autoclosure () -> String, _ m: KeyValuePairs<String, String> = [:]) { log(.error, e(), m) }

    static func quote(_ s: String) -> String {
        if !s.isEmpty, !s.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\n" }) { return s }
        var out = "\""
        for c in s {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.append(c)
            }
        }
        return out + "\""
    }

    /// Now in UTC, `2026-11-30T08:00:00.250Z` (milliseconds, truncated).
    static func timestamp() -> String {
        RFC3339.format(unixNanos: Int64(bitPattern: MonotonicClock.realtimeNanos()))
    }
}
