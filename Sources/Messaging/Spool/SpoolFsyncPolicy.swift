/// When the spool file is flushed to stable storage (`spool.fsync` in the agent's config).
///
/// SD cards wear out and `fsync` costs milliseconds, so the default syncs at most once per interval:
/// a power cut may then lose the events of the last interval, a process crash loses none (the
/// kernel still has the pages).
public enum SpoolFsyncPolicy: Sendable, Equatable {
    /// `fsync` after every record: survives power loss, costs one flush per event.
    case always
    /// `fsync` at most once per interval (milliseconds) while records were written.
    case interval(milliseconds: Int)
    /// Never `fsync`; the kernel writes back on its own schedule (survives process crashes only).
    case never

    /// The policy's name in the agent's config (`spool.fsync`), without the interval.
    public enum Mode: String, Sendable, Equatable, CaseIterable {
        case always, interval, never
    }

    /// `mode`, with `intervalMilliseconds` used by `.interval` only.
    public init(mode: Mode, intervalMilliseconds: Int) {
        switch mode {
        case .always: self = .always
        case .interval: self = .interval(milliseconds: intervalMilliseconds)
        case .never: self = .never
        }
    }

    public var mode: Mode {
        switch self {
        case .always: .always
        case .interval: .interval
        case .never: .never
        }
    }
}
