import MotionCore

/// One history write: what `ActivityHistoryStore.record` was given.
enum HistoryWrite: Sendable {
    case activity(MotionActivity, utcStart: Double)
    case pedometer(PedometerRecord)
    /// Both in one transaction.
    case both(MotionActivity, utcStart: Double, PedometerRecord)
}

/// Writes the history database refused (full disk, I/O error), kept in memory in order and
/// retried before every new write and by `ActivityHistoryStore.retryPending()`, so a full disk
/// delays history instead of losing it. Bounded: beyond `capacity` the oldest is discarded and
/// counted. Not thread-safe: the store holds its lock around every use.
struct HistoryBacklog {
    /// Writes kept at most (a change every few seconds for hours; a few hundred kB).
    static let capacity = 4096

    private(set) var pending: [HistoryWrite] = []
    /// Writes discarded because the backlog was full (lost).
    private(set) var discarded = 0
    /// Why the oldest pending write failed (nil when nothing is pending).
    private(set) var reason: String?

    var isEmpty: Bool { pending.isEmpty }
    var count: Int { pending.count }

    mutating func keep(_ w: HistoryWrite, because error: HistoryError) {
        if reason == nil { reason = error.description }
        pending.append(w)
        if pending.count > Self.capacity {
            pending.removeFirst(pending.count - Self.capacity)
            discarded += 1
        }
    }

    /// Writes pending writes oldest first through `write` until one fails; returns that error.
    mutating func flush(_ write: (HistoryWrite) throws(HistoryError) -> Void) -> HistoryError? {
        var done = 0
        defer {
            pending.removeFirst(done)
            if pending.isEmpty { reason = nil }
        }
        for w in pending {
            do throws(HistoryError) { try write(w) } catch { return error }
            done += 1
        }
        return nil
    }
}
