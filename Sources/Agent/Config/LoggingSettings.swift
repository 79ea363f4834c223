import Logging

/// `logging:` — log output.
public struct LoggingSettings: Sendable, Equatable {
    /// `level`: lowest level written (`trace`, `debug`, `info`, `notice`, `warning`, `error`,
    /// `critical`).
    public var level: LogLevel

    public init(level: LogLevel = .info) { self.level = level }
}
