/// `spool:` — the on-disk spool of events that must not be lost (activity, pedometer), in
/// `state_directory/outbox.spool`.
public struct SpoolConfiguration: Sendable, Equatable {
    /// Values `fsync` accepts.
    public static let fsyncPolicies = ["always", "interval", "never"]

    /// `enabled`: keep unacknowledged events on disk across restarts. false = memory only.
    public var enabled: Bool
    /// `max_bytes`: unacknowledged events kept, bytes. 4096 … 1073741824. Beyond it the oldest
    /// event is dropped (`spool_full`, logged).
    public var maxBytes: Int
    /// `fsync`: `always` (every event; survives power loss), `interval` (at most every
    /// `fsync_interval_ms`), `never` (survives process crashes only).
    public var fsync: String
    /// `fsync_interval_ms`: for `fsync: interval`, ms. 10 … 60000.
    public var fsyncIntervalMilliseconds: Int

    public init(enabled: Bool = true, maxBytes: Int = 8 << 20, fsync: String = "interval", fsyncIntervalMilliseconds: Int = 1000) {
        self.enabled = enabled
        self.maxBytes = maxBytes
        self.fsync = fsync
        self.fsyncIntervalMilliseconds = fsyncIntervalMilliseconds
    }

    /// The spool file inside `stateDirectory`.
    public static func path(stateDirectory: String) -> String {
        (stateDirectory.hasSuffix("/") ? stateDirectory : stateDirectory + "/") + "outbox.spool"
    }
}
