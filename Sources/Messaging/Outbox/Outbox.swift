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
    private let state = Mutex(State())
    private let signal = ChangeSignal()
    private let stopRequested = Atomic<Bool>(false)
    private let pumpExited = Atomic<Bool>(false)
    /// Threads inside `drain(timeout:)`, which need a wake-up when the last message is acknowledged.
    private let drainWaiters = Atomic<Int>(0)
    /// Producers waiting in `enqueue(…, waitForRoom: true)`, which need a wake-up when a send frees room.
    private let roomWaiters = Atomic<Int>(0)
    /// Whether a thread is inside `send()` (the pump, or a producer sending inline from `wake()`):
    /// one sender at a time, since `inHand` holds one message.
    private let sending = Atomic<Bool>(false)
    private let thread = Mutex<pthread_t?>(nil)
    /// Owned by the pump thread after `init` (and by `init` before the thread starts).
    nonisolated(unsafe) private var spool: EventSpool?
    /// When the pump next checks that the spool file is still in place (monotonic ns; pump thread only).
    nonisolated(unsafe) private var nextSpoolCheckNanos: UInt64 = 0

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
                    st.stats.lastError = "spool \(path): skipped \(s.corruptRecords) damaged stretch(es) at start, recovered \(s.recovered.count) event(s)"
                        + (s.keptCorruptCopy.map { "; damaged file kept as \($0)" } ?? "")
                }
            }
        }
        startPump()
    }

    deinit {
        if !pumpExited.load(ordering: .acquiring) { stop(timeout: .zero) }
    }

    /// The counter name of an event or state topic (stream batches count under the name given to
    /// `registerStream`): its last level (`…/health` → `health`, `…/activity` → `activity`), or its
    /// last two levels when the last one alone would be ambiguous — below `events` or `latest`
    /// (`…/events/activity` → `events/activity`, `…/latest/motion` → `latest/motion`) or a level
    /// named `events` (`…/pedometer/events` → `pedometer/events`). Distinct names keep each
    /// topic's `produced = acknowledged + dropped + queued` exact: a retained `latest/accelerometer`
    /// snapshot must not count as an `accelerometer` stream batch.
    public static func counterName(forTopic topic: String) -> String {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard let last = levels.last else { return topic }
        if levels.count >= 2 {
            let parent = levels[levels.count - 2]
            if parent == "events" || parent == "latest" || last == "events" { return parent + "/" + last }
        }
        return String(last)
    }

    /// `counterName(forTopic:)`, unless that name belongs to a registered stream on another topic:
    /// then the whole topic, so stream counters count stream batches only.
    private func counterName(forTopic topic: String, _ st: State) -> String {
        let name = Outbox.counterName(forTopic: topic)
        if let i = st.streamNames.firstIndex(of: name), st.streamTopics[i] != topic { return topic }
        return name
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
                st.connectionEpoch &+= 1
                if case .connectionLost = change { st.lastChangeWasLoss = true } else { st.lastChangeWasLoss = false }
                // QoS 0 batches not yet written are discarded by libmosquitto on reconnect: dropped
                // (`connection_lost`). QoS ≥ 1 messages stay tracked by their mid: libmosquitto 2.0.11
                // keeps them and sends them again (DUP) right after the next CONNACK, whatever the
                // clean-session flag (`message__reconnect_reset`, `message__retry_check`), so each is
                // counted once — acknowledged on its PUBACK — never both delivered and dropped.
                // (A broker that had already forwarded one before dying may forward the resent copy
                // too: subscribers de-duplicate by `seq`.)
                for (mid, item) in st.inflight {
                    if item.qos == 0 {
                        st.inflight[mid] = nil
                        drop(&st, item, .connectionLost)
                    } else if case .connectionLost = change {
                        st.stats.retransmitted += 1
                    }
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
        // Wake the pump (or a `drain` waiter) only when this acknowledgement can change what they
        // wait for: a full in-flight window opened, an event's spool record can go, or nothing is
        // in flight any more while someone `drain`s. A wake per QoS 0 batch written would cost the pump thread a futex
        // wake-up per message for nothing.
        let wake = state.withLock { st -> Bool in
            guard st.client === client else { return false }
            let wasFull = st.inflight.count >= settings.inflightWindow
            guard let item = st.inflight.removeValue(forKey: mid) else {
                if st.inHand != nil { st.earlyCompletions.append((mid, nil)) }
                return false
            }
            st.stats.topics[item.counter, default: OutboxTopicCounts()].acknowledged += 1
            if item.klass == .event {
                st.eventBytes -= item.bytes
                if item.spoolID != 0 { st.acknowledgedEventIDs.append(item.spoolID) }
                return true
            }
            return wasFull || (st.inflight.isEmpty && drainWaiters.load(ordering: .relaxed) > 0)
        }
        if wake { signal.notifyAll() }
    }

    /// An MQTT 5 broker refused a publish (reason ≥ 128, e.g. 135 not authorised by its ACL).
    /// Retrying cannot help, so the message is dropped as `refused` — counted, logged and kept as
    /// `lastError` for `health` — instead of being counted as delivered.
    private func refused(mid: Int32, reason: Int32, client: MQTTClient) {
        let message = state.withLock { st -> String? in
            guard st.client === client else { return nil }
            guard let item = st.inflight.removeValue(forKey: mid) else {
                if st.inHand != nil { st.earlyCompletions.append((mid, reason)) }
                return nil
            }
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
        // The client names each refused topic once in the log; here it is counted and kept as
        // the last error.
        _ = message
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
    ///
    /// `wake: false` leaves the pump asleep (it still looks every 100 ms): a producer that queues
    /// several batches in a row calls `wake()` once after the last, so the pump thread wakes once
    /// per burst rather than once per batch.
    public func enqueue(stream handle: Int, payload: UnsafeRawBufferPointer, qos: Int, retain: Bool, waitForRoom: Bool = false,
                        wake: Bool = true) {
        let bytes = Array(payload)
        if waitForRoom {
            roomWaiters.add(1, ordering: .relaxed)
            defer { roomWaiters.subtract(1, ordering: .relaxed) }
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
        if wake { signal.notifyAll() }
    }

    /// Sends what was queued with `enqueue(…, wake: false)`: on the calling thread when no other
    /// thread is sending (the messages are handed to libmosquitto and written to the socket here,
    /// without waking the pump — one thread wake-up less per burst), else by waking the pump.
    /// Like the pump, it sends only while connected and within the in-flight window; it never
    /// waits for the network (the socket is non-blocking) and never touches the spool.
    public func wake() {
        guard sending.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            signal.notifyAll()
            return
        }
        let sent = send()
        sending.store(false, ordering: .releasing)
        if sent && (drainWaiters.load(ordering: .relaxed) > 0 || roomWaiters.load(ordering: .relaxed) > 0) {
            signal.notifyAll()
        }
    }

    /// Queues an event that must not be lost: spooled, published with QoS 1 (not retained),
    /// removed from the spool after the PUBACK.
    public func enqueueEvent(topic: String, payload: [UInt8]) {
        var item = Item(klass: .event, counter: "", topic: topic, payload: payload,
                        qos: 1, retain: false, enqueuedNanos: MonotonicClock.nowNanos())
        state.withLock { st in
            item.counter = counterName(forTopic: topic, st)
            st.stats.topics[item.counter, default: OutboxTopicCounts()].produced += 1
            st.incomingEvents.append(item)
            st.eventBytes += item.bytes
        }
        signal.notifyAll()
    }

    /// Queues the newest value of a state topic (replacing an older one still waiting).
    public func enqueueState(topic: String, payload: [UInt8], qos: Int = 1, retain: Bool = true) {
        var item = Item(klass: .state, counter: "", topic: topic, payload: payload,
                        qos: qos, retain: retain, enqueuedNanos: MonotonicClock.nowNanos())
        state.withLock { st in
            item.counter = counterName(forTopic: topic, st)
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
                + (st.inHand?.klass == .event ? 1 : 0)
            s.inflight = st.inflight.count + (st.inHand == nil ? 0 : 1)
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
        ThreadName.setCurrent("em-outbox")
        while !stopRequested.load(ordering: .acquiring) {
            signal.wait(untilNanos: MonotonicClock.deadline(after: .milliseconds(100))) { hasWork() || stopRequested.load(ordering: .acquiring) }
            persist()
            expireStreams()
            if sending.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
                let sent = send()
                sending.store(false, ordering: .releasing)
                if sent { signal.notifyAll() }
            } else {
                // A producer is sending inline (`wake()`) and takes whatever is queued; look again
                // in a moment instead of spinning on `hasWork()` while it does.
                _ = signal.wait(untilNanos: MonotonicClock.deadline(after: .milliseconds(1))) { stopRequested.load(ordering: .acquiring) }
            }
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
        if let spool, !incoming.isEmpty || !acks.isEmpty || MonotonicClock.nowNanos() >= nextSpoolCheckNanos {
            nextSpoolCheckNanos = MonotonicClock.nowNanos() + 1_000_000_000
            if spool.isDetached() {
                let acked = Set(acks)
                let keep = state.withLock { st in
                    (st.inflight.values.filter { $0.klass == .event } + st.pendingEvents)
                        .filter { $0.spoolID != 0 && !acked.contains($0.spoolID) }
                        .sorted { $0.spoolID < $1.spoolID }
                        .map { SpoolEntry(id: $0.spoolID, topic: $0.topic, payload: $0.payload, qos: $0.qos, retain: $0.retain) }
                }
                do throws(SpoolError) { try spool.reattach(keeping: keep) } catch { failure = error.description }
                state.withLock { st in
                    st.stats.spoolRecreations = spool.recreations
                    st.stats.lastError = "spool \(spool.path): the file was deleted or replaced while running; recreated with \(keep.count) unacknowledged event(s)"
                }
            }
        }
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
            st.stats.spoolWriteProblem = spool?.writeProblem
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

    @discardableResult
    /// Hands queued messages to libmosquitto while connected and the in-flight window has room.
    ///
    /// The state lock is *not* held while `MQTTClient.publish` runs (a system call into the
    /// socket pair and libmosquitto's own locks): holding it made the processing thread's
    /// `enqueue` and the network thread's acknowledgements wait behind every publish (measured:
    /// 10 % of the processing thread's time in the lock's slow path at 400 messages/s). Instead
    /// each message is taken out of its queue (`inHand`), published, then recorded as in flight;
    /// an acknowledgement that overtakes the recording is kept in `earlyCompletions`, and a
    /// connection change or a new client in between is detected by `connectionEpoch`.
    private func send() -> Bool {
        var refusal: String?
        var sent = false
        // Packets are queued without writing and written once after the loop (one socket write
        // per message, no lock round-trip per message), or before switching to another client.
        var unflushed: MQTTClient?
        var queued = 0
        defer { unflushed?.flush(coalescing: queued > 1) }
        while let (item, client, epoch) = takeNextForSending() {
            if let previous = unflushed, previous !== client { previous.flush(coalescing: queued > 1); queued = 0 }
            unflushed = client
            queued += 1
            let result = item.payload.withUnsafeBytes { p -> Result<Int32, MQTTError> in
                do throws(MQTTError) {
                    return .success(try client.publish(topic: item.topic, payload: p, qos: item.qos, retain: item.retain, flush: false))
                } catch { return .failure(error) }
            }
            let stop = state.withLock { st -> Bool in
                st.inHand = nil
                defer { st.earlyCompletions.removeAll(keepingCapacity: true) }
                switch result {
                case .success(let mid):
                    st.stats.topics[item.counter, default: OutboxTopicCounts()].published += 1
                    if let early = st.earlyCompletions.first(where: { $0.mid == mid }) {
                        // Written and acknowledged (or refused) before this thread got the lock back.
                        if let reason = early.refusedReason {
                            drop(&st, item, .refused)
                            st.stats.lastError = "broker refused the publish to \(item.topic): MQTT 5 reason \(reason)"
                        } else {
                            st.stats.topics[item.counter, default: OutboxTopicCounts()].acknowledged += 1
                        }
                        if item.klass == .event {
                            st.eventBytes -= item.bytes
                            if item.spoolID != 0 { st.acknowledgedEventIDs.append(item.spoolID) }
                        }
                    } else if st.client !== client {
                        // Re-attached meanwhile: the old client's fate is unknown; do what
                        // `takeBackInflight` does for messages that were in flight on it.
                        putBack(&st, item)
                    } else if st.connectionEpoch != epoch && item.qos == 0 {
                        // The connection dropped while publishing: libmosquitto discards QoS 0.
                        drop(&st, item, .connectionLost)
                    } else {
                        if st.connectionEpoch != epoch && st.lastChangeWasLoss { st.stats.retransmitted += 1 }
                        st.inflight[mid] = item
                    }
                    sent = true
                    return false
                case .failure(let error):
                    st.stats.lastError = error.description
                    switch error.kind {
                    case .invalidTopic, .invalidArgument, .malformedUTF8, .payloadTooLarge, .oversizePacket,
                         .qosNotSupported, .invalidOptions:
                        // This message can never be sent: drop it (counted) instead of blocking the queue.
                        refusal = error.description
                        drop(&st, item, .refused)
                        if item.klass == .event {
                            st.eventBytes -= item.bytes
                            if item.spoolID != 0 { st.acknowledgedEventIDs.append(item.spoolID) }
                        }
                        sent = true
                        return false
                    default:
                        // Transient (not connected, connection lost, out of memory, …): put it back
                        // (a stream batch is dropped: the stream moves on) and retry shortly,
                        // without spinning.
                        st.pausedUntilNanos = MonotonicClock.nowNanos() &+ 200_000_000
                        putBack(&st, item)
                        return true
                    }
                }
            }
            if stop { break }
        }
        if let refusal { logRateLimited("publish refused by libmosquitto; message dropped", refusal) }
        return sent
    }

    /// Takes the next message to publish out of its queue (events, then state, then streams) and
    /// marks it `inHand`; `nil` when disconnected, paused, the window is full or nothing waits.
    private func takeNextForSending() -> (Item, MQTTClient, UInt64)? {
        state.withLock { st -> (Item, MQTTClient, UInt64)? in
            guard let client = st.client, st.connected, st.inflight.count < settings.inflightWindow,
                  MonotonicClock.nowNanos() >= st.pausedUntilNanos else { return nil }
            var taken: Item?
            if !st.pendingEvents.isEmpty {
                taken = st.pendingEvents.removeFirst()
            } else {
                while taken == nil, let topic = st.stateOrder.first {
                    st.stateOrder.removeFirst()
                    taken = st.states.removeValue(forKey: topic)
                }
                if taken == nil, st.streamHead < st.streams.count {
                    let item = st.streams[st.streamHead]
                    st.streams[st.streamHead].payload = []
                    st.streamHead += 1
                    st.streamBytes -= item.bytes
                    compactStreams(&st)
                    taken = item
                }
            }
            guard let item = taken else { return nil }
            st.inHand = item
            return (item, client, st.connectionEpoch)
        }
    }

    /// A message taken for sending that did not make it (transient failure, or the client was
    /// replaced meanwhile): events go back to the front, state unless superseded; a stream batch
    /// is dropped (`connection_lost`) — the stream moves on, as for batches in flight on a lost
    /// connection.
    private func putBack(_ st: inout State, _ item: Item) {
        switch item.klass {
        case .event: st.pendingEvents.insert(item, at: 0)
        case .state: requeueState(&st, item)
        case .stream: drop(&st, item, .connectionLost)
        }
    }

    /// A state message goes back unless a newer value of its topic arrived meanwhile (which then
    /// carries the state: the old one counts as superseded, as in `enqueueState`).
    private func requeueState(_ st: inout State, _ item: Item) {
        if st.states[item.topic] == nil {
            st.states[item.topic] = item
            st.stateOrder.insert(item.topic, at: 0)
        } else {
            st.stats.topics[item.counter, default: OutboxTopicCounts()].acknowledged += 1
        }
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
        drainWaiters.add(1, ordering: .relaxed)
        defer { drainWaiters.subtract(1, ordering: .relaxed) }
        signal.notifyAll()
        return signal.wait(untilNanos: MonotonicClock.deadline(after: timeout)) {
            state.withLock { st in
                st.incomingEvents.isEmpty && st.pendingEvents.isEmpty && st.inflight.isEmpty && st.inHand == nil && st.states.isEmpty
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
