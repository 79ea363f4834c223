import Messaging
import Synchronization

/// Names one numbering of an event topic: an event's `seq` counts from 0 for each publisher
/// instance (each agent start, and each pipeline restart of a reload), so `seq` alone repeats;
/// `(run, seq)` identifies an event. A subscriber that de-duplicates (QoS 1 delivers at least once,
/// and the spool re-sends after a restart what the broker had not acknowledged) keys on both.
enum EventRun {
    /// A new run id: 16 lowercase hex digits from the system's random source (64 bits: two runs
    /// of a fleet share one with probability ~n²/2⁶⁵).
    static func newID() -> String {
        var g = SystemRandomNumberGenerator()
        let hex = String(g.next() as UInt64, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// One event topic's numbering shared by all its producers: one `run` and a `seq` from 0 that each
/// event takes in turn (`events/status` is written by the source-health relay, the clock-step
/// check and the movement advisor, on three threads). Sendable: `run` is immutable and the counter
/// is an atomic.
final class EventSequence: Sendable {
    let run: String
    private let nextSeq = Atomic<UInt64>(0)

    init(run: String = EventRun.newID()) { self.run = run }

    /// The next `seq` (each call returns a new one).
    private func take() -> UInt64 { nextSeq.wrappingAdd(1, ordering: .relaxed).oldValue }

    /// Begins an event's JSON object with the next `seq` and the `run`.
    func beginEvent(_ w: inout JSONWriter) {
        w.beginObject()
        w.field("seq", take())
        w.field("run", run)
    }
}
