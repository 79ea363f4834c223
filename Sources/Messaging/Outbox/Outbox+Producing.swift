#if canImport(Glibc)
import Glibc
#endif
import Logging
import Platform
import Synchronization

extension Outbox {
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
    /// `wake: false` leaves the pump asleep (it still looks within a second, `idleLookNanos`): a producer that queues
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
        let now = clock.nowNanos()
        state.withLock { st in
            guard handle >= 0, handle < st.streamTopics.count else { return }
            let item = Item(klass: .stream, counter: st.streamNames[handle], topic: st.streamTopics[handle],
                            payload: bytes, qos: qos, retain: retain, enqueuedNanos: now)
            st.stats.topics[item.counter, default: OutboxTopicCounts()].produced += 1
            if st.stopping { st.drop(item, .shutdown); return }
            while st.streamBytes + item.bytes > settings.maximumStreamBytes, st.streamHead < st.streams.count {
                st.drop(st.popStreamHead(), .full)
            }
            if item.bytes > settings.maximumStreamBytes { st.drop(item, .full); return }
            st.streams.append(item)
            st.streamBytes += item.bytes
            st.compactStreams()
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
                        qos: 1, retain: false, enqueuedNanos: clock.nowNanos())
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
                        qos: qos, retain: retain, enqueuedNanos: clock.nowNanos())
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
}
