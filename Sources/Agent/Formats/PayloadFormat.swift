/// `streams.<name>.format`: how a stream's batches are encoded on the wire.
public enum PayloadFormat: String, Sendable, Equatable, CaseIterable {
    /// One JSON object per batch (docs/topics.md). The default.
    case json
    /// InfluxDB line protocol: one line per sample, ns UTC timestamps (docs/influx.md), so
    /// Telegraf's `mqtt_consumer` with `data_format = "influx"` ingests it without a parser config.
    case influx
}
