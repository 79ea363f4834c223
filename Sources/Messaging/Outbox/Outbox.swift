#if canImport(Glibc)
import Glibc
#endif
import Logging
import MotionCore
import Synchronization

/// The bounded buffer between the pipeline and libmosquitto.
///
/// Producers (`enqueue(stream:…)` on the pipeline's processing thread, `enqueueEvent`,
/// `enqueueState` from anywhere) only copy the message and take a short lock: they never block on
/// the network or the disk. One pump thread owned by the outbox writes events to the spool and hands
/// messages to libmosquitto **only while connected**, at most `inflightWindow` at a time, so
/// libmosquitto's own queues (unbounded in 2.0.11) stay short. Order when connected: events (oldest
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
    private let log = Logger(label: "outbox")

    private struct Item {
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

    private struct State {
        var client: MQTTClient?
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
        /// After a transient publish failure, sending pauses until this monotonic time.
        var pausedUntilNanos: UInt64 = 0
    }
    private let state = Mutex(State())
    private let signal = ChangeSignal()
    private let stopRequested = Atomic<Bool>(false)
    private let pumpExited = Atomic<Bool>(false)
    private let thread = Mutex<pthread_t?>(nil)
    /// Owned by the pump thread after `init` (and by `init` before the thread starts).
    nonisolated(unsafe) private var spool: EventSpool?

    /// Opens (and replays) the spool when `settings.spoolPath` is set and starts the pump thread.
    /// - Throws: `SpoolError` when the spool file cannot be opened.
    public init(settings: OutboxSettings) throws(SpoolError) {
        self.settings = settings
        if let path = settings.spoolPath {
            let s = try EventSpool(path: path, fsync: settings.spoolFsync)
            spool = s
            let now = MonotonicClock.nowNanos()
            state.withLock { st in
                for e in s.recovered {
                    let name = Outbox.counterName(forTopic: e.topic)
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
                    st.stats.lastError = "spool \(path): skipped \(s.corruptRecords) damaged record(s) at start"
                }
            }
        }
        startPump()
    }

    deinit {
        if !pumpExited.load(ordering: .acquiring) { stop(timeout: .zero) }
    }

    /// The counter name of a topic: its last level (`…/events/activity` → `activity`).
    public static func counterName(forTopic topic: String) -> String {
        topic.split(separator: "/").last.map(String.init) ?? topic
    }

    // MARK: Client

    /// Uses `client` from now on (at start, or after a reload changed the broker). Messages in flight
    /// on a previous client are taken back: events and state are sent again on the new one, stream
    /// batches are counted as `connection_lost`. Installs the client's `onPublishAcknowledged`.
    public func attach(_ client: MQTTClient) {
        client.onPublishAcknowledged = { [weak self] mid in self?.acknowledged(mid: mid, client: client) }
        client.onPublishRefused = { [weak self] mid, reason in self?.refused(mid: mid, reason: reason, client: client) }
        state.withLock { st in
            if st.client !== client { takeBackInflight(&st, keepStreams: false) }
            st.client = client
            st.connected = client.isConnected
        }
        signal.notifyAll()
    }

    /// Forward `MQTTClient.onConnectionChange` here.
    public func connectionChanged(_ change: MQTTConnectionState, client: MQTTClient) {
        state.withLock { st in
            guard st.client === client else { return }
            switch change {
            case .connected:
                st.connected = true
                st.pausedUntilNanos = 0
            case .connectionLost, .connectionFailed, .stopped:
                st.connected = false
                // QoS 0 batches not yet written are discarded by libmosquitto on reconnect; QoS ≥ 1
                // messages stay with libmosquitto, which resends them after the reconnect.
                for (mid, item) in st.inflight where item.qos == 0 {
                    st.inflight[mid] = nil
                    drop(&st, item, .connectionLost)
                }
            case .connecting:
                break
            }
        }
        signal.notifyAll()
    }

    private func takeBackInflight(_ st: inout State, keepStreams: Bool) {
        let items = st.inflight.values.sorted { $0.enqueuedNanos < $1.enqueuedNanos }
        st.inflight.removeAll()
        var events: [Item] = []
        for item in items {
            switch item.klass {
            case .event: events.append(item)
            case .state: if st.states[item.topic] == nil { st.states[item.topic] = item; st.stateOrder.append(item.topic) }
            case .stream: drop(&st, item, .connectionLost)
            }
        }
        st.pendingEvents.insert(contentsOf: events.sorted { $0.spoolID < $1.spoolID }, at: 0)
    }

    private func acknowledged(mid: Int32, client: MQTTClient) {
        state.withLock { st in
            guard st.client === client, let item = st.inflight.removeValue(forKey: mid) else { return }
            st.stats.topics[item.counter, default: OutboxTopicCounts()].acknowledged += 1
            if item.klass == .event {
                st.eventBytes -= item.bytes
                if item.spoolID != 0 { st.acknowledgedEventIDs.append(item.spoolID) }
            }
        }
        signal.notifyAll()
    }

    /// An MQTT 5 broker refused a publish (reason ≥ 128, e.g. 135 not authorised by its ACL).
    /// Retrying cannot help, so the message is dropped as `refused` — counted, logged and kept as
    /// `lastError` for `health` — instead of being counted as delivered.
    private func refused(mid: Int32, reason: Int32, client: MQTTClient) {
        let message = state.withLock { st -> String? in
            guard st.client === client, let item = st.inflight.removeValue(forKey: mid) else { return nil }
            drop(&st, item, .refused)
            if item.klass == .event {
                st.eventBytes -= item.bytes
                if item.spoolID != 0 { st.acknowledgedEventIDs.append(item.spoolID) }
            }
            let text = "broker refused the publish to \(item.topic): MQTT 5 reason \(reason)"
                + (reason == 135 ? " (not authorised — check the broker's ACL for this topic)" : "")
            st.stats.lastError = text
            return text
        }
        signal.notifyAll()
        if let message { logRateLimited("publish refused by the broker; message dropped", message) }
    }

    // MARK: Producing

    /// Registers a stream topic; returns the handle for `enqueue(stream:…)`. `name` is its counter name.
    public func registerStream(topic: String, name: String) -> Int {
        state.withLock { st in
            if let i = st.streamTopics.firstIndex(of: topic), st.streamNames[i] == name { return i }
            st.streamTopics.append(topic)
            st.streamNames.append(name)
            st.stats.topics[name, default: OutboxTopicCounts()] = st.stats.topics[name] ?? OutboxTopicCounts()
            return st.streamTopics.count - 1
        }
    }

    /// Queues a stream batch (copied). Never blocks on the network or disk; when the stream buffer is
    /// full, the oldest batches are dropped (`full`).
    ///
    /// `waitForRoom: true` is for lossless sources (a recording replayed as fast as possible): the
    /// caller then waits until the batch fits instead of dropping older ones (back-pressure), until
    /// the outbox stops.
    public func enqueue(stream handle: Int, payload: UnsafeRawBufferPointer, qos: Int, retain: Bool, waitForRoom: Bool = false) {
        let bytes = Array(payload)
        if waitForRoom {
            let need = bytes.count + 256
            while !signal.wait(untilNanos: MonotonicClock.deadline(after: .milliseconds(100)), {
                state.withLock { st in st.stopping || st.streamBytes + need <= settings.maximumStreamBytes || st.streamHead == st.streams.count }
            }) {}
        }
        let now = MonotonicClock.nowNanos()
        state.withLock { st in
            guard handle >= 0, handle < st.streamTopics.count else { return }
            let item = Item(klass: .stream, counter: st.streamNames[handle], topic: st.streamTopics[handle],
                            payload: bytes, qos: qos, retain: retain, enqueuedNanos: now)
            st.stats.topics[item.counter, default: OutboxTopicCounts()].produced += 1
            if st.stopping { drop(&st, item, .shutdown); return }
            while st.streamBytes + item.bytes > settings.maximumStreamBytes, st.streamHead < st.streams.count {
                let old = st.streams[st.streamHead]
                st.streamHead += 1
                st.streamBytes -= old.bytes
                drop(&st, old, .full)
            }
            if item.bytes > settings.maximumStreamBytes { drop(&st, item, .full); return }
            st.streams.append(item)
            st.streamBytes += item.bytes
            compactStreams(&st)
        }
        signal.notifyAll()
    }

    /// Queues an event that must not be lost: spooled, published with QoS 1 (not retained),
    /// removed from the spool after the PUBACK.
    public func enqueueEvent(topic: String, payload: [UInt8]) {
        let item = Item(klass: .event, counter: Outbox.counterName(forTopic: topic), topic: topic, payload: payload,
                        qos: 1, retain: false, enqueuedNanos: MonotonicClock.nowNanos())
        state.withLock { st in
            st.stats.topics[item.counter, default: OutboxTopicCounts()].produced += 1
            st.incomingEvents.append(item)
            st.eventBytes += item.bytes
        }
        signal.notifyAll()
    }

    /// Queues the newest value of a state topic (replacing an older one still waiting).
    public func enqueueState(topic: String, payload: [UInt8], qos: Int = 1, retain: Bool = true) {
        let item = Item(klass: .state, counter: Outbox.counterName(forTopic: topic), topic: topic, payload: payload,
                        qos: qos, retain: retain, enqueuedNanos: MonotonicClock.nowNanos())
        state.withLock { st in
            st.stats.topics[item.counter, default: OutboxTopicCounts()].produced += 1
            if st.states[topic] != nil {
                // Superseded, not lost: the newer value carries the state. Counted as acknowledged-
                // equivalent so produced = acknowledged + dropped + queued still holds.
                st.stats.topics[item.counter, default: OutboxTopicCounts()].acknowledged += 1
            } else {
                st.stateOrder.append(topic)
            }
            st.states[topic] = item
        }
        signal.notifyAll()
    }

    private func drop(_ st: inout State, _ item: Item, _ reason: OutboxDropReason) {
        st.stats.topics[item.counter, default: OutboxTopicCounts()].dropped[reason, default: 0] += 1
    }

    private func compactStreams(_ st: inout State) {
        if st.streamHead > 64 && st.streamHead * 2 > st.streams.count {
            st.streams.removeFirst(st.streamHead)
            st.streamHead = 0
        }
    }

    // MARK: Observing

    public var statistics: OutboxStatistics {
        state.withLock { st in
            var s = st.stats
            s.queuedBytes = st.streamBytes + st.eventBytes + st.states.values.reduce(0) { $0 + $1.bytes }
            s.queuedStreamMessages = st.streams.count - st.streamHead
            s.unacknowledgedEvents = st.incomingEvents.count + st.pendingEvents.count + st.inflight.values.filter { $0.klass == .event }.count
            s.inflight = st.inflight.count
            return s
        }
    }

    // MARK: Pump

    private func startPump() {
        let box = Unmanaged.passRetained(self).toOpaque()
        var tid = pthread_t()
        let rc = pthread_create(&tid, nil, { arg in
            let outbox = Unmanaged<Outbox>.fromOpaque(arg!).takeRetainedValue()
            outbox.pumpLoop()
            return nil
        }, box)
        if rc == 0 {
            thread.withLock { $0 = tid }
        } else {
            Unmanaged<Outbox>.fromOpaque(box).release()
            pumpExited.store(true, ordering: .releasing)
            log.error("cannot start the outbox thread; nothing will be published", ["errno": String(rc)])
        }
    }

    private func pumpLoop() {
        while !stopRequested.load(ordering: .acquiring) {
            signal.wait(untilNanos: MonotonicClock.deadline(after: .milliseconds(100))) { hasWork() || stopRequested.load(ordering: .acquiring) }
            persist()
            expireStreams()
            if send() { signal.notifyAll() }
        }
        persist()
        spool?.syncIfDue()
        try? spool?.sync()
        pumpExited.store(true, ordering: .releasing)
        signal.notifyAll()
    }

    private func hasWork() -> Bool {
        state.withLock { st in
            if !st.incomingEvents.isEmpty || !st.acknowledgedEventIDs.isEmpty { return true }
            guard st.connected, st.client != nil, st.inflight.count < settings.inflightWindow,
                  MonotonicClock.nowNanos() >= st.pausedUntilNanos else { return false }
            return !st.pendingEvents.isEmpty || !st.states.isEmpty || st.streamHead < st.streams.count
        }
    }

    /// Spool work, outside the lock: append new events, record acknowledgements, flush, compact.
    private func persist() {
        let (incoming, acks) = state.withLock { st -> ([Item], [UInt64]) in
            defer { st.incomingEvents.removeAll(); st.acknowledgedEventIDs.removeAll() }
            return (st.incomingEvents, st.acknowledgedEventIDs)
        }
        var written: [Item] = []
        var failure: String?
        for var item in incoming {
            if let spool {
                do throws(SpoolError) {
                    let e = try spool.append(topic: item.topic, payload: item.payload, qos: item.qos, retain: item.retain)
                    item.spoolID = e.id
                } catch {
                    failure = error.description
                }
            }
            written.append(item)
        }
        for id in acks {
            do throws(SpoolError) { try spool?.acknowledge(id: id) } catch { failure = error.description }
        }
        spool?.syncIfDue()

        let unacknowledged = state.withLock { st -> [Item]? in
            st.pendingEvents.append(contentsOf: written)
            if spool != nil { st.stats.spooled += written.filter { $0.spoolID != 0 }.count }
            // Spool bound: drop the oldest pending events (loudly) beyond it.
            while st.eventBytes > settings.maximumSpoolBytes, !st.pendingEvents.isEmpty {
                let old = st.pendingEvents.removeFirst()
                st.eventBytes -= old.bytes
                drop(&st, old, .spoolFull)
                if old.spoolID != 0 { st.acknowledgedEventIDs.append(old.spoolID) }
                st.stats.lastError = "spool full (\(settings.maximumSpoolBytes) bytes): dropped the oldest unacknowledged event"
            }
            if let failure { st.stats.lastError = failure }
            st.stats.spoolWriteFailures = spool?.writeFailures ?? 0
            st.stats.spoolFileBytes = spool?.fileBytes ?? 0
            let inflightEvents = st.inflight.values.contains { $0.klass == .event }
            guard let spool else { return nil }
            let idle = st.pendingEvents.isEmpty && !inflightEvents && st.incomingEvents.isEmpty && st.acknowledgedEventIDs.isEmpty
            if idle && spool.fileBytes > 64 << 10 { return [] }
            if spool.fileBytes > 2 * settings.maximumSpoolBytes + (64 << 10) {
                return (st.inflight.values.filter { $0.klass == .event } + st.pendingEvents).sorted { $0.spoolID < $1.spoolID }
            }
            return nil
        }
        if let failure { logRateLimited("spool write failed; events stay in memory", failure) }
        if let keep = unacknowledged, let spool {
            let entries = keep.map { SpoolEntry(id: $0.spoolID, topic: $0.topic, payload: $0.payload, qos: $0.qos, retain: $0.retain) }
            do throws(SpoolError) { try spool.rewrite(keeping: entries) } catch {
                logRateLimited("spool compaction failed", error.description)
            }
            state.withLock { $0.stats.spoolFileBytes = spool.fileBytes }
        }
    }

    private func expireStreams() {
        let maxAge = UInt64(max(0, settings.maximumStreamAgeMilliseconds)) * 1_000_000
        let now = MonotonicClock.nowNanos()
        state.withLock { st in
            while st.streamHead < st.streams.count, now &- st.streams[st.streamHead].enqueuedNanos > maxAge {
                let old = st.streams[st.streamHead]
                st.streamHead += 1
                st.streamBytes -= old.bytes
                drop(&st, old, .expired)
            }
            compactStreams(&st)
        }
    }

    /// Hands messages to libmosquitto while connected and the window has room. The lock is held
    /// across `publish` so an `on_publish` for the new mid cannot be handled before it is recorded
    /// (the callback waits for the lock; libmosquitto holds none of the locks `publish` needs while
    /// calling it).
    @discardableResult
    private func send() -> Bool {
        var refusal: String?
        var sent = false
        state.withLock { st in
            guard let client = st.client, MonotonicClock.nowNanos() >= st.pausedUntilNanos else { return }
            while st.connected, st.inflight.count < settings.inflightWindow {
                var item: Item
                let source: Int
                if let e = st.pendingEvents.first {
                    item = e; source = 0
                } else if let topic = st.stateOrder.first {
                    guard let s = st.states[topic] else { st.stateOrder.removeFirst(); continue }
                    item = s; source = 1
                } else if st.streamHead < st.streams.count {
                    item = st.streams[st.streamHead]; source = 2
                } else {
                    break
                }
                let result = item.payload.withUnsafeBytes { p -> Result<Int32, MQTTError> in
                    do throws(MQTTError) { return .success(try client.publish(topic: item.topic, payload: p, qos: item.qos, retain: item.retain)) }
                    catch { return .failure(error) }
                }
                let permanent: Bool
                switch result {
                case .success(let mid):
                    st.inflight[mid] = item
                    st.stats.topics[item.counter, default: OutboxTopicCounts()].published += 1
                    permanent = false
                case .failure(let error):
                    switch error.kind {
                    case .invalidTopic, .invalidArgument, .malformedUTF8, .payloadTooLarge, .oversizePacket,
                         .qosNotSupported, .invalidOptions:
                        // This message can never be sent: drop it (counted) instead of blocking the queue.
                        permanent = true
                        refusal = error.description
                        st.stats.lastError = error.description
                    default:
                        // Transient (not connected, connection lost, out of memory, …): keep the
                        // message and retry shortly, without spinning.
                        st.pausedUntilNanos = MonotonicClock.nowNanos() &+ 200_000_000
                        st.stats.lastError = error.description
                        return
                    }
                }
                // Remove from its queue (sent, or refused for good).
                switch source {
                case 0:
                    st.pendingEvents.removeFirst()
                    if permanent {
                        st.eventBytes -= item.bytes
                        drop(&st, item, .refused)
                        if item.spoolID != 0 { st.acknowledgedEventIDs.append(item.spoolID) }
                    }
                case 1:
                    st.stateOrder.removeFirst()
                    st.states[item.topic] = nil
                    if permanent { drop(&st, item, .refused) }
                default:
                    st.streamHead += 1
                    st.streamBytes -= item.bytes
                    if permanent { drop(&st, item, .refused) }
                }
                item.payload = []
                sent = true
            }
            compactStreams(&st)
        }
        if let refusal { logRateLimited("publish refused by libmosquitto; message dropped", refusal) }
        return sent
    }

    private func logRateLimited(_ event: String, _ error: String) {
        let now = MonotonicClock.nowNanos()
        let due = state.withLock { st -> Bool in
            guard now &- st.lastRefusalLogNanos > 10_000_000_000 || st.lastRefusalLogNanos == 0 else { return false }
            st.lastRefusalLogNanos = now
            return true
        }
        if due { log.warning(event, ["error": error]) }
    }

    // MARK: Stopping

    /// Waits until every event is acknowledged and the queues are empty, or `timeout`.
    /// New stream batches keep being accepted meanwhile. Returns whether everything was delivered.
    @discardableResult
    public func drain(timeout: Duration) -> Bool {
        signal.notifyAll()
        return signal.wait(untilNanos: MonotonicClock.deadline(after: timeout)) {
            state.withLock { st in
                st.incomingEvents.isEmpty && st.pendingEvents.isEmpty && st.inflight.isEmpty && st.states.isEmpty
                    && st.streamHead == st.streams.count && st.acknowledgedEventIDs.isEmpty
            }
        }
    }

    /// Stops the pump (bounded by `timeout`); stream and state messages still queued or in flight
    /// are counted as dropped (`shutdown`); events stay in the spool for the next run. Idempotent.
    public func stop(timeout: Duration = .seconds(1)) {
        state.withLock { st in
            guard !st.stopping else { return }
            st.stopping = true
        }
        stopRequested.store(true, ordering: .releasing)
        signal.notifyAll()
        if let tid = thread.withLock({ t -> pthread_t? in defer { t = nil }; return t }) {
            if signal.wait(untilNanos: MonotonicClock.deadline(after: max(timeout, .milliseconds(200))), { pumpExited.load(ordering: .acquiring) }) {
                pthread_join(tid, nil)
                // Close (and unlock) the spool: the next outbox — or agent — may open it.
                spool = nil
            } else {
                pthread_detach(tid)
            }
        }
        state.withLock { st in
            while st.streamHead < st.streams.count {
                drop(&st, st.streams[st.streamHead], .shutdown)
                st.streamHead += 1
            }
            st.streams.removeAll(); st.streamHead = 0; st.streamBytes = 0
            for t in st.stateOrder { if let s = st.states[t] { drop(&st, s, .shutdown) } }
            st.states.removeAll(); st.stateOrder.removeAll()
            for (mid, item) in st.inflight where item.klass != .event {
                st.inflight[mid] = nil
                drop(&st, item, .shutdown)
            }
        }
    }
}
