import Messaging
import MotionCore

/// The source failed (`error` set) or recovered (`error == nil`), as the pipeline reported it;
/// announced once on `<prefix>/events/status` (spooled, QoS 1).
struct SourceTransition: Sendable, Equatable {
    /// Why the source failed; nil for a recovery.
    var error: String?
    /// When the pipeline reported it, UTC nanoseconds.
    var realtimeNanos: UInt64

    /// `{"event":"sourceFailed","source":…,"error":…,"retry_max_s":…,"time_utc_us":…}` or
    /// `{"event":"sourceRecovered","source":…,"down_s":…,"attempts":…,"time_utc_us":…}`.
    func payload(source: String, retryMaxSeconds: Double, downSeconds: Double?, attempts: UInt64,
                 sequence: EventSequence) -> [UInt8] {
        var w = JSONWriter(capacity: 512)
        sequence.beginEvent(&w)
        if let error {
            w.field("event", "sourceFailed")
            w.field("source", source)
            w.field("error", error)
            w.field("reason", "the source failed; the agent re-opens it with backoff (up to source.retry_max_s) until it works")
            w.field("retry_max_s", retryMaxSeconds, fractionDigits: 1)
        } else {
            w.field("event", "sourceRecovered")
            w.field("source", source)
            w.field("reason", "the source works again; sampling resumed (seq continues)")
            if let downSeconds { w.field("down_s", downSeconds, fractionDigits: 1) }
            w.field("retries", Int(attempts))
        }
        w.field("time_utc_us", Int64(realtimeNanos / 1000))
        w.endObject()
        return w.buffer
    }
}
