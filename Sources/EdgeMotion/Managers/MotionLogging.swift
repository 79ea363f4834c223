import Logging

/// The library's own log lines (one per event on standard error: source failures, retries,
/// pipeline start and stop). Never per sample.
public enum MotionLogging {
    /// Whether the library logs at all. Set to `false` to keep standard error quiet; default true.
    public static var isEnabled: Bool {
        get { !Logger.isSilenced }
        set { Logger.isSilenced = !newValue }
    }

    /// The least severe level logged: `trace`, `debug`, `info` (default), `notice`, `warning`,
    /// `error`, `critical`. Returns false for an unknown name.
    @discardableResult
    public static func setMinimumLevel(_ name: String) -> Bool {
        guard let level = LogLevel.allCases.first(where: { $0.name == name }) else { return false }
        Logger.threshold = level
        return true
    }
}
