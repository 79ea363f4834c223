import Messaging

/// `outbox:` — the bounded buffer between the pipeline and the broker (see docs/configuration.md).
/// Defaults: `OutboxSettings.defaults`.
public struct OutboxConfiguration: Sendable, Equatable {
    /// `max_bytes`: memory for stream batches waiting for the broker, bytes. 4096 … 1073741824.
    /// When full, the oldest batch is dropped (counted in `stats.outbox.dropped`).
    public var maxBytes: Int
    /// `max_age_s`: stream batches older than this are dropped instead of sent late, seconds. 0.1 … 86400.
    public var maxAgeSeconds: Double
    /// `inflight`: messages handed to libmosquitto and not yet confirmed, at most. 1 … 20.
    public var inflight: Int

    public init(maxBytes: Int = OutboxSettings.defaults.maximumStreamBytes,
                maxAgeSeconds: Double = Double(OutboxSettings.defaults.maximumStreamAgeMilliseconds) / 1000,
                inflight: Int = OutboxSettings.defaults.inflightWindow) {
        self.maxBytes = maxBytes
        self.maxAgeSeconds = maxAgeSeconds
        self.inflight = inflight
    }
}
