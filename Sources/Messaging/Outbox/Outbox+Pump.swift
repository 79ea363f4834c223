#if canImport(Glibc)
import Glibc
#endif
import Logging
import Platform
import Synchronization

extension Outbox {
    /// Starts the pump thread (`em-outbox`) with `starter`.
    /// - Throws: `ThreadStartError` from the starter; the outbox then has no pump (`init` fails).
    func startPump(_ starter: ThreadStarter) throws(ThreadStartError) {
        do throws(ThreadStartError) {
            // The thread holds the outbox until the pump ends.
            let started = try starter("em-outbox") { self.pumpLoop() }
            thread.withLock { $0 = started }
        } catch {
            pumpExited.store(true, ordering: .releasing)
            throw error
        }
    }

    func pumpLoop() {
        while !stopRequested.load(ordering: .acquiring) {
            let wait = idleWaitNanos()
            signal.wait(untilNanos: MonotonicClock.nowNanos() &+ wait, sliceNanos: wait) { hasWork() || stopRequested.load(ordering: .acquiring) }
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
        finishSpoolWork()
        pumpExited.store(true, ordering: .releasing)
        signal.notifyAll()
    }

    func hasWork() -> Bool {
        state.withLock { st in
            if !st.incomingEvents.isEmpty || !st.acknowledgedEventIDs.isEmpty { return true }
            guard st.connected, st.client != nil, st.inflight.count < settings.inflightWindow,
                  st.pausedUntilNanos == 0 || clock.nowNanos() >= st.pausedUntilNanos else { return false }
            return !st.pendingEvents.isEmpty || !st.states.isEmpty || st.streamHead < st.streams.count
        }
    }

    /// The longest idle look: everything else that the pump waits for notifies `signal`
    /// (a producer, an acknowledgement that opens the window or settles an event, a connection
    /// change, `stop`), so this only bounds a missed notification.
    static let idleLookNanos: UInt64 = 1_000_000_000

    /// How long the pump may sleep before something due on the clock needs it: the end of a
    /// pause after a transient publish failure, or the expiry of the oldest queued stream batch
    /// (`maximumStreamAgeMilliseconds`); at most `idleLookNanos`. Read off the outbox's clock
    /// (injected in tests), waited on `CLOCK_MONOTONIC`. A pump that woke every 100 ms whatever
    /// was due cost this machine 36 µs per wake-up (docs/performance.md).
    func idleWaitNanos() -> UInt64 {
        let maxAge = settings.maximumStreamAgeNanos
        let now = clock.nowNanos()
        return state.withLock { st in
            var wait = Self.idleLookNanos
            if st.pausedUntilNanos > now { wait = min(wait, st.pausedUntilNanos - now) }
            if st.streamHead < st.streams.count {
                let expiry = st.streams[st.streamHead].enqueuedNanos &+ maxAge
                wait = min(wait, expiry > now ? expiry - now : 0)
            }
            return max(wait, 1_000_000)
        }
    }

    func expireStreams() {
        let maxAge = settings.maximumStreamAgeNanos
        let now = clock.nowNanos()
        state.withLock { st in
            while st.streamHead < st.streams.count, now &- st.streams[st.streamHead].enqueuedNanos > maxAge {
                st.drop(st.popStreamHead(), .expired)
            }
            st.compactStreams()
        }
    }


    /// One round of the pump's work on the calling thread: spool, expiry, sending. For tests of an
    /// outbox made with `runsPump: false`, which have no pump thread.
    func pumpOnce() {
        persist()
        expireStreams()
        if sending.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            _ = send()
            sending.store(false, ordering: .releasing)
        }
    }
}
