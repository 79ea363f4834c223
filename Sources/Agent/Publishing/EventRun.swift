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
