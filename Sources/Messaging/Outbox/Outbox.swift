#if canImport(Glibc)
import Glibc
#endif
import Logging
import Platform
import Synchronization

/// The bounded buffer between the pipeline and libmosquitto.
///
/// Files: this one holds the state and its invariants; `Outbox+Connection` (attach, connection
/// changes, acknowledgements), `Outbox+Producing` (enqueue), `Outbox+Sending` (hand-off to the
/// transport), `Outbox+Pump` (the pump thread and stream expiry), `Outbox+Spool` (persistence),
/// `Outbox+Stopping`, `OutboxCounterNames`, `OutboxTransport` (the seam tests drive).
///
/// Producers (`enqueue(stream:…)` on the pipeline's processing thread, `enqueueEvent`,
/// `enqueueState` from anywhere) only copy the message and take a short lock: they never block on
/// the network or the disk. Messages reach libmosquitto **only while connected**, at most
/// `inflightWindow` at a time, so libmosquitto's own queues (unbounded in 2.0.11) stay short: mostly
/// from the processing thread itself, which calls `wake()` after each burst and sends inline when no
/// one else is sending; otherwise from the outbox's pump thread (`em-outbox`), which also alone
/// writes the spool and expires old stream batches. One sender at a time (`sending`). Order when connected: events (oldest
/// first), then state, then stream batches (oldest first).
///
/// Guarantees, per class (see `OutboxClass`): streams are bounded in bytes and age and every drop is
/// counted per topic and reason, so `produced == acknowledged + dropped + queued` holds exactly;
/// events are written to the spool before they are published and leave it only after the PUBACK,
/// so they survive broker outages, agent crashes and restarts (at-least-once: a crash between the
/// PUBACK and the spool's ack record replays the event — subscribers de-duplicate by the event's
/// own sequence number).
///
/// Allocation: one heap copy of each message (its payload array) when it is enqueued; nothing per
/// sample. The outbox never allocates on behalf of the sampling thread.
public final class Outbox: Sendable {
    public let settings: OutboxSettings
    let log = Logger(label: "outbox")
    /// Time for queue ages, pauses and spool checks (`CLOCK_MONOTONIC` unless a test injects one).
    let clock: OutboxClock
    /// Whether a pump thread runs (false only in tests that call `pumpOnce()` themselves).
    let runsPump: Bool

    struct Item {
        var klass: OutboxClass
        var counter: String
        var topic: String
        var payload: [UInt8]
        var qos: Int
        var retain: Bool
        var enqueuedNanos: UInt64
        /// Spool id for events (0 until spooled, or when there is no spool).
        var spoolID: UInt64 = 0
        var bytes: Int { payload.count + topic.utf8.count }
    }

    struct State {
        var client: (any OutboxTransport)?
        var connected = false
        var streams: [Item] = []
        var streamHead = 0
        var streamBytes = 0
        var states: [String: Item] = [:]
        var stateOrder: [String] = []
        /// Events accepted, not yet written to the spool.
        var incomingEvents: [Item] = []
        /// Events on disk (or memory-only without a spool), not yet handed to libmosquitto.
        var pendingEvents: [Item] = []
        var eventBytes = 0
        var inflight: [Int32: Item] = [:]
        /// Spool ids acknowledged by the broker, to record in the spool.
        var acknowledgedEventIDs: [UInt64] = []
        var stats = OutboxStatistics()
        var streamNames: [String] = []
        var streamTopics: [String] = []
        var stopping = false
        var lastRefusalLogNanos: UInt64 = 0
        /// After a transient publish failure, sending pauses until this monotonic time (ns; 0: no
        /// pause since the last connect, and then the clock is not read).
        var pausedUntilNanos: UInt64 = 0
        /// The message the pump is publishing right now (taken out of its queue, not yet in flight).
        var inHand: Item?
        /// Acknowledgements (or MQTT 5 refusals) of unknown message ids that arrived while a
        /// message was in hand: the network thread can report a QoS 0 write before `publish` returns.
        var earlyCompletions: [(mid: Int32, refusedReason: Int32?)] = []
        /// Incremented on every connection loss/failure/stop, so a publish that straddles one is
        /// recognised; `lastChangeWasLoss` tells whether libmosquitto will resend its QoS ≥ 1 copy.
        var connectionEpoch: UInt64 = 0
        var lastChangeWasLoss = false
    }
    let state = Mutex(State())
    let signal = Condition()
    let stopRequested = Atomic<Bool>(false)
    let pumpExited = Atomic<Bool>(false)
    /// Threads inside `drain(timeout:)`, which need a wake-up when the last message is acknowledged.
    let drainWaiters = Atomic<Int>(0)
    /// Producers waiting in `enqueue(…, waitForRoom: true)`, which need a wake-up when a send frees room.
    let roomWaiters = Atomic<Int>(0)
    /// Whether a thread is inside `send()` (the pump, or a producer sending inline from `wake()`):
    /// one sender at a time, since `inHand` holds one message.
    let sending = Atomic<Bool>(false)
    let thread = Mutex<PlatformThread?>(nil)
    /// Owned by the pump thread after `init` (and by `init` before the thread starts).
    nonisolated(unsafe) var spool: EventSpool?
    /// When the pump next checks that the spool file is still in place (monotonic ns; pump thread only).
    nonisolated(unsafe) var nextSpoolCheckNanos: UInt64 = 0

    /// Opens (and replays) the spool when `settings.spoolPath` is set and starts the pump thread.
    /// - Throws: `.spool` when the spool file cannot be opened, `.thread` when the pump thread
    ///   (`em-outbox`) cannot be created.
    public convenience init(settings: OutboxSettings) throws(OutboxStartError) {
        try self.init(settings: settings, clock: .monotonic, runsPump: true, threadStarter: platformThreadStarter)
    }

    /// The same with the pump thread started by `threadStarter` (the agent passes its own; tests
    /// make `pthread_create` fail).
    package convenience init(settings: OutboxSettings, threadStarter: @escaping ThreadStarter) throws(OutboxStartError) {
        try self.init(settings: settings, clock: .monotonic, runsPump: true, threadStarter: threadStarter)
    }

    /// The same with an injected clock; `runsPump: false` starts no thread, so a test drives
    /// the pump's work itself with `pumpOnce()` (deterministic: no sleeps, no other thread).
    init(settings: OutboxSettings, clock: OutboxClock, runsPump: Bool,
         threadStarter: @escaping ThreadStarter = platformThreadStarter) throws(OutboxStartError) {
        self.settings = settings
        self.clock = clock
        self.runsPump = runsPump
        if let path = settings.spoolPath {
            let s: EventSpool
            do throws(SpoolError) { s = try EventSpool(path: path, fsync: settings.spoolFsync) } catch { throw .spool(error) }
            spool = s
            let now = clock.nowNanos()
            state.withLock { st in
                for e in s.recovered {
                    let name = settings.counterNaming.name(forTopic: e.topic)
                    var item = Item(klass: .event, counter: name, topic: e.topic, payload: e.payload, qos: e.qos,
                                    retain: e.retain, enqueuedNanos: now)
                    item.spoolID = e.id
                    st.pendingEvents.append(item)
                    st.eventBytes += item.bytes
                    st.stats.topics[name, default: OutboxTopicCounts()].produced += 1
                }
                st.stats.replayed = s.recovered.count
                st.stats.spoolCorruptRecords = s.corruptRecords
                st.stats.spoolFileBytes = s.fileBytes
                if s.corruptRecords > 0 {
                    st.stats.lastError = "spool \(path): skipped \(s.corruptRecords) damaged stretch(es) at start, recovered \(s.recovered.count) event(s)"
                        + (s.keptCorruptCopy.map { "; damaged file kept as \($0)" } ?? "")
                }
            }
        }
        if runsPump {
            do throws(ThreadStartError) { try startPump(threadStarter) } catch { throw .thread(error) }
        } else {
            pumpExited.store(true, ordering: .releasing)
        }
    }

    deinit {
        if !pumpExited.load(ordering: .acquiring) || !runsPump { stop(timeout: .zero) }
    }

    // MARK: Observing

    public var statistics: OutboxStatistics {
        state.withLock { st in
            var s = st.stats
            s.queuedBytes = st.streamBytes + st.eventBytes + st.states.values.reduce(0) { $0 + $1.bytes }
            s.queuedStreamMessages = st.streams.count - st.streamHead
            s.unacknowledgedEvents = st.incomingEvents.count + st.pendingEvents.count + st.inflight.values.filter { $0.klass == .event }.count
                + (st.inHand?.klass == .event ? 1 : 0)
            s.inflight = st.inflight.count + (st.inHand == nil ? 0 : 1)
            return s
        }
    }
}

extension Outbox.State {
    /// Counts `item` as dropped for `reason` under its counter.
    mutating func drop(_ item: Outbox.Item, _ reason: OutboxDropReason) {
        stats.topics[item.counter, default: OutboxTopicCounts()].dropped[reason, default: 0] += 1
    }

    /// An event's fate is settled (acknowledged, refused or dropped): it no longer counts against
    /// the event bytes, and its spool record can be marked acknowledged. No-op for other classes.
    mutating func settle(_ item: Outbox.Item) {
        guard item.klass == .event else { return }
        eventBytes -= item.bytes
        if item.spoolID != 0 { acknowledgedEventIDs.append(item.spoolID) }
    }

    /// Takes the oldest queued stream batch off the queue (its slot's payload released at once).
    mutating func popStreamHead() -> Outbox.Item {
        let item = streams[streamHead]
        streams[streamHead].payload = []
        streamHead += 1
        streamBytes -= item.bytes
        return item
    }

    /// Releases the consumed front of the stream queue once it is most of the array.
    mutating func compactStreams() {
        if streamHead > 64 && streamHead * 2 > streams.count {
            streams.removeFirst(streamHead)
            streamHead = 0
        }
    }
}
