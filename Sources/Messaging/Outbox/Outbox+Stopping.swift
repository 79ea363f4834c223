#if canImport(Glibc)
import Glibc
#endif
import Logging
import Platform
import Synchronization

extension Outbox {
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
        if let tid = thread.withLock({ t -> PlatformThread? in defer { t = nil }; return t }) {
            if signal.wait(untilNanos: MonotonicClock.deadline(after: max(timeout, .milliseconds(200))), { pumpExited.load(ordering: .acquiring) }) {
                tid.join()
                // Close (and unlock) the spool: the next outbox — or agent — may open it.
                spool = nil
            } else {
                tid.detach()
            }
        } else if !runsPump {
            finishSpoolWork()
            spool = nil
        }
        state.withLock { st in
            while st.streamHead < st.streams.count {
                st.drop(st.popStreamHead(), .shutdown)
            }
            st.streams.removeAll(); st.streamHead = 0; st.streamBytes = 0
            for t in st.stateOrder { if let s = st.states[t] { st.drop(s, .shutdown) } }
            st.states.removeAll(); st.stateOrder.removeAll()
            for (mid, item) in st.inflight where item.klass != .event {
                st.inflight[mid] = nil
                st.drop(item, .shutdown)
            }
        }
    }
}
