#if canImport(Glibc)
import Glibc
#endif
import Logging
import Platform
import Synchronization

extension Outbox {
    /// Uses `client` from now on (at start, or after a reload changed the broker). Messages in flight
    /// on a previous client are taken back: events and state are sent again on the new one, stream
    /// batches are counted as `connection_lost`. Installs the client's publish completions and the
    /// outbox's own connection observer (told after the owner's `onConnectionChange`): nobody
    /// forwards connection changes to the outbox.
    public func attach(_ client: MQTTClient) {
        attach(transport: client)
    }

    /// `attach` for any transport (the seam tests use).
    func attach(transport client: any OutboxTransport) {
        client.setCompletionHandlers(
            acknowledged: { [weak self] mid in self?.acknowledged(mid: mid, client: client) },
            refused: { [weak self] mid, reason in self?.refused(mid: mid, reason: reason, client: client) },
            connectionChanged: { [weak self, weak client] change in
                guard let self, let client else { return }
                self.connectionChanged(change, transport: client)
            })
        state.withLock { st in
            if st.client !== client { takeBackInflight(&st, keepStreams: false) }
            st.client = client
            st.connected = client.isConnected
        }
        signal.notifyAll()
    }

    /// A connection change of the attached transport (its observer installed by `attach`); a
    /// change of a transport no longer attached is ignored.
    func connectionChanged(_ change: MQTTConnectionState, transport client: any OutboxTransport) {
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
                        st.drop(item, .connectionLost)
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

    func takeBackInflight(_ st: inout State, keepStreams: Bool) {
        let items = st.inflight.values.sorted { $0.enqueuedNanos < $1.enqueuedNanos }
        st.inflight.removeAll()
        var events: [Item] = []
        for item in items {
            switch item.klass {
            case .event: events.append(item)
            case .state: if st.states[item.topic] == nil { st.states[item.topic] = item; st.stateOrder.append(item.topic) }
            case .stream: st.drop(item, .connectionLost)
            }
        }
        st.pendingEvents.insert(contentsOf: events.sorted { $0.spoolID < $1.spoolID }, at: 0)
    }

    func acknowledged(mid: Int32, client: any OutboxTransport) {
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
            st.settle(item)
            if item.klass == .event { return true }
            return wasFull || (st.inflight.isEmpty && drainWaiters.load(ordering: .relaxed) > 0)
        }
        if wake { signal.notifyAll() }
    }

    /// An MQTT 5 broker refused a publish (reason ≥ 128, e.g. 135 not authorised by its ACL).
    /// Retrying cannot help, so the message is dropped as `refused` — counted, logged and kept as
    /// `lastError` for `health` — instead of being counted as delivered.
    func refused(mid: Int32, reason: Int32, client: any OutboxTransport) {
        let message = state.withLock { st -> String? in
            guard st.client === client else { return nil }
            guard let item = st.inflight.removeValue(forKey: mid) else {
                if st.inHand != nil { st.earlyCompletions.append((mid, reason)) }
                return nil
            }
            st.drop(item, .refused)
            st.settle(item)
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
}
