import Messaging

/// `spool:` — the on-disk spool of events that must not be lost (activity, pedometer), in
/// `state_directory/outbox.spool`. Defaults: `OutboxSettings.defaults`.
public struct SpoolConfiguration: Sendable, Equatable {
    /// `enabled`: keep unacknowledged events on disk across restarts. false = memory only.
    public var enabled: Bool
    /// `max_bytes`: unacknowledged events kept, bytes. 4096 … 1073741824. Beyond it the oldest
    /// event is dropped (`spool_full`, logged).
    public var maxBytes: Int
    /// `fsync`: `always` (every event; survives power loss), `interval` (at most every
    /// `fsync_interval_ms`, 10 … 60000 ms), `never` (survives process crashes only). Read from
    /// both keys; `fsync_interval_ms` is checked even when unused.
    public var fsync: SpoolFsyncPolicy

    public init(enabled: Bool = true, maxBytes: Int = OutboxSettings.defaults.maximumSpoolBytes,
                fsync: SpoolFsyncPolicy = OutboxSettings.defaults.spoolFsync) {
        self.enabled = enabled
        self.maxBytes = maxBytes
        self.fsync = fsync
    }

    /// The spool file inside `stateDirectory`.
    public static func path(stateDirectory: String) -> String {
        (stateDirectory.hasSuffix("/") ? stateDirectory : stateDirectory + "/") + "outbox.spool"
    }
}
