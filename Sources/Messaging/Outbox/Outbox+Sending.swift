#if canImport(Glibc)
import Glibc
#endif
import Logging
import Platform
import Synchronization

extension Outbox {
    /// Hands queued messages to libmosquitto while connected and the in-flight window has room.
    ///
    /// The state lock is *not* held while `MQTTClient.publish` runs (a system call into the
    /// socket pair and libmosquitto's own locks): holding it made the processing thread's
    /// `enqueue` and the network thread's acknowledgements wait behind every publish (measured:
    /// 10 % of the processing thread's time in the lock's slow path at 400 messages/s). Instead
    /// each message is taken out of its queue (`inHand`), published, then recorded as in flight;
    /// an acknowledgement that overtakes the recording is kept in `earlyCompletions`, and a
    /// connection change or a new client in between is detected by `connectionEpoch`.
    @discardableResult
    func send() -> Bool {
        var refusal: String?
        var sent = false
        // Packets are queued without writing and written once after the loop (one socket write
        // per message, no lock round-trip per message), or before switching to another client.
        var unflushed: (any OutboxTransport)?
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
                            st.drop(item, .refused)
                            st.stats.lastError = "broker refused the publish to \(item.topic): MQTT 5 reason \(reason)"
                        } else {
                            st.stats.topics[item.counter, default: OutboxTopicCounts()].acknowledged += 1
                        }
                        st.settle(item)
                    } else if st.client !== client {
                        // Re-attached meanwhile: the old client's fate is unknown; do what
                        // `takeBackInflight` does for messages that were in flight on it.
                        putBack(&st, item)
                    } else if st.connectionEpoch != epoch && item.qos == 0 {
                        // The connection dropped while publishing: libmosquitto discards QoS 0.
                        st.drop(item, .connectionLost)
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
                        st.drop(item, .refused)
                        st.settle(item)
                        sent = true
                        return false
                    default:
                        // Transient (not connected, connection lost, out of memory, …): put it back
                        // (a stream batch is dropped: the stream moves on) and retry shortly,
                        // without spinning.
                        st.pausedUntilNanos = clock.nowNanos() &+ 200_000_000
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
    func takeNextForSending() -> (Item, any OutboxTransport, UInt64)? {
        state.withLock { st -> (Item, any OutboxTransport, UInt64)? in
            // The clock is read only while a pause is set (0 = none, the usual case): one clock
            // read less per message on the processing thread.
            guard let client = st.client, st.connected, st.inflight.count < settings.inflightWindow,
                  st.pausedUntilNanos == 0 || clock.nowNanos() >= st.pausedUntilNanos else { return nil }
            var taken: Item?
            if !st.pendingEvents.isEmpty {
                taken = st.pendingEvents.removeFirst()
            } else {
                while taken == nil, let topic = st.stateOrder.first {
                    st.stateOrder.removeFirst()
                    taken = st.states.removeValue(forKey: topic)
                }
                if taken == nil, st.streamHead < st.streams.count {
                    taken = st.popStreamHead()
                    st.compactStreams()
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
    func putBack(_ st: inout State, _ item: Item) {
        switch item.klass {
        case .event: st.pendingEvents.insert(item, at: 0)
        case .state: requeueState(&st, item)
        case .stream: st.drop(item, .connectionLost)
        }
    }

    /// A state message goes back unless a newer value of its topic arrived meanwhile (which then
    /// carries the state: the old one counts as superseded, as in `enqueueState`).
    func requeueState(_ st: inout State, _ item: Item) {
        if st.states[item.topic] == nil {
            st.states[item.topic] = item
            st.stateOrder.insert(item.topic, at: 0)
        } else {
            st.stats.topics[item.counter, default: OutboxTopicCounts()].acknowledged += 1
        }
    }

    func logRateLimited(_ event: String, _ error: String) {
        let now = clock.nowNanos()
        let due = state.withLock { st -> Bool in
            guard now &- st.lastRefusalLogNanos > 10_000_000_000 || st.lastRefusalLogNanos == 0 else { return false }
            st.lastRefusalLogNanos = now
            return true
        }
        if due { log.warning(event, ["error": error]) }
    }
}
