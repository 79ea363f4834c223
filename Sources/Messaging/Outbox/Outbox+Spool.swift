#if canImport(Glibc)
import Glibc
#endif
import Logging
import Platform
import Synchronization

extension Outbox {
    /// Spool work, outside the lock: append new events, record acknowledgements, flush, compact.
    func persist() {
        let (incoming, acks) = state.withLock { st -> ([Item], [UInt64]) in
            defer { st.incomingEvents.removeAll(); st.acknowledgedEventIDs.removeAll() }
            return (st.incomingEvents, st.acknowledgedEventIDs)
        }
        var written: [Item] = []
        var failure: String?
        if let spool, !incoming.isEmpty || !acks.isEmpty || clock.nowNanos() >= nextSpoolCheckNanos {
            nextSpoolCheckNanos = clock.nowNanos() + 1_000_000_000
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
                st.drop(old, .spoolFull)
                st.settle(old)
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


    /// The pump's last spool work: persist what is left and sync the file.
    func finishSpoolWork() {
        persist()
        spool?.syncIfDue()
        try? spool?.sync()
    }
}
