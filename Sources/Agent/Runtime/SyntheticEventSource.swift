import Messaging
import MotionCore

#if canImport(Glibc)
import Glibc
#endif

/// Test aid (`debug.synthetic_events_per_minute`): emits small events through the event path
/// (outbox → spool → QoS 1 → PUBACK) on `<prefix>/events/synthetic`, so fault-injection tests can
/// prove that no event is lost before the real activity and pedometer events exist.
///
/// Payload: `{"seq":N,"run":"<16 hex>","type":"synthetic","time_utc_us":…}`, numbered by one
/// `EventSequence` as every event topic: `run` is random per agent start (and per reload that
/// replaces the source), `seq` counts from 0 per run; `(run, seq)` identifies an event for
/// de-duplication.
struct SyntheticEventSource {
    let topic: String
    let perMinute: Double
    let sequence = EventSequence()
    private var nextNanos: UInt64

    init(topic: String, perMinute: Double, startNanos: UInt64 = MonotonicClock.nowNanos()) {
        self.topic = topic
        self.perMinute = perMinute
        nextNanos = startNanos
    }

    /// Enqueues the events due by `now` (at most 100 per call, so a stalled loop does not burst).
    mutating func emitDue(now: UInt64, into outbox: Outbox) {
        guard perMinute > 0 else { return }
        let period = UInt64(60e9 / perMinute)
        var n = 0
        while now >= nextNanos, n < 100 {
            var w = JSONWriter(capacity: 128)
            sequence.beginEvent(&w)
            w.field("type", "synthetic" as StaticString)
            w.field("time_utc_us", Int64(MonotonicClock.realtimeNanos() / 1000))
            w.endObject()
            outbox.enqueueEvent(topic: topic, payload: w.buffer)
            nextNanos &+= period
            n += 1
        }
        if now > nextNanos &+ 10 * period { nextNanos = now &+ period }
    }
}
