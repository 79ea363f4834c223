#if canImport(Glibc)
import Glibc
#endif
import CMosquitto
import Logging
import Platform
import Synchronization

extension MQTTClient {
    /// Runs `body` holding `socketLock` when publishers write themselves (so no write meets the
    /// socket being closed or replaced); directly over TLS, where only this thread touches it.
    func withSocket(_ body: () -> Int32) -> Int32 {
        publishersWrite ? withSocketLock { _ in body() } : body()
    }

    /// Holds `socketLock` around `body`, recording this thread as its owner.
    func withSocketLock<R>(_ body: (inout Bool) -> R) -> R {
        socketLock.withLock { alive in
            socketOwner.store(UInt(pthread_self()), ordering: .relaxed)
            defer { socketOwner.store(0, ordering: .relaxed) }
            return body(&alive)
        }
    }

    /// One turn of the plain-TCP network loop, in place of `mosquitto_loop` (whose `select` also
    /// wakes for every publish through libmosquitto's socket pair): sleep in `poll(2)` on the socket
    /// (`POLLOUT` only while a write is unfinished) and the wake-up pipe, then read, write what is
    /// queued (e.g. PUBACKs and subscriptions queued by callbacks, or a publisher's unfinished
    /// write) and run the keepalive check. Returns a libmosquitto code (non-zero: connection over).
    func serviceSocket(timeoutMilliseconds: Int32) -> Int32 {
        guard let wakeup else { return MOSQ_ERR_INVAL.rawValue }
        let (fd, wantWrite) = withSocketLock { _ in (mosquitto_socket(handle), mosquitto_want_write(handle)) }
        guard fd >= 0 else { return MOSQ_ERR_NO_CONN.rawValue }
        var fds = (pollfd(fd: fd, events: Int16(POLLIN) | (wantWrite ? Int16(POLLOUT) : 0), revents: 0),
                   pollfd(fd: wakeup.readEnd, events: Int16(POLLIN), revents: 0))
        let n = withUnsafeMutableBytes(of: &fds) { raw in
            poll(raw.baseAddress!.assumingMemoryBound(to: pollfd.self), 2, timeoutMilliseconds)
        }
        if n < 0 { return errno == EINTR ? MOSQ_ERR_SUCCESS.rawValue : MOSQ_ERR_ERRNO.rawValue }
        networkWakeupCount.add(1, ordering: .relaxed)
        if fds.1.revents != 0 { wakeup.reset() }
        let readable = fds.0.revents & Int16(POLLIN | POLLERR | POLLHUP) != 0
        return withSocketLock { _ -> Int32 in
            // The socket may have been closed (and its number reused) by a publisher's failed
            // write while this thread slept: only touch the one libmosquitto holds now.
            guard mosquitto_socket(handle) == fd else { return MOSQ_ERR_CONN_LOST.rawValue }
            if readable {
                let rc = mosquitto_loop_read(handle, 1)
                if rc != MOSQ_ERR_SUCCESS.rawValue { return rc }
            }
            if mosquitto_want_write(handle) {
                let rc = mosquitto_loop_write(handle, 1)
                if rc != MOSQ_ERR_SUCCESS.rawValue { return rc }
            }
            return mosquitto_loop_misc(handle)
        }
    }

    /// Writes the packets queued by `publish(…, flush: false)` (and anything else queued) on the
    /// calling thread. Over TLS this is left to the network thread; from inside a callback that
    /// runs within a read or write, to the loop already running there. When the socket cannot
    /// take everything (or the write fails), the network thread is woken to finish or to handle
    /// the loss.
    ///
    /// `coalescing: true` (several packets queued) corks the socket (`TCP_CORK`) around the
    /// writes, so they leave as one TCP segment: one trip through the network stack and one
    /// wake-up of the broker per burst instead of one per message (on loopback, each send also
    /// runs the receiver's side of the stack on this thread).
    public func flush(coalescing: Bool = false) {
        guard publishersWrite, let wakeup else { return }
        guard socketOwner.load(ordering: .relaxed) != UInt(pthread_self()) else { return }
        let finished = withSocketLock { alive -> Bool in
            guard alive else { return true }   // the handle is destroyed: nothing to write
            let fd = mosquitto_socket(handle)
            guard fd >= 0, mosquitto_want_write(handle) else { return true }
            if coalescing { Self.setCork(fd, true) }
            let rc = mosquitto_loop_write(handle, 1)
            // The write may have failed and closed the socket: uncork only the one still open.
            if coalescing, mosquitto_socket(handle) == fd { Self.setCork(fd, false) }
            return rc == MOSQ_ERR_SUCCESS.rawValue && !mosquitto_want_write(handle)
        }
        if !finished {
            deferredWriteCount.add(1, ordering: .relaxed)
            wakeup.wake()
        }
    }

    /// `TCP_CORK` on or off (off sends what is held at once).
    static func setCork(_ fd: Int32, _ on: Bool) {
        var value: Int32 = on ? 1 : 0
        _ = setsockopt(fd, Int32(IPPROTO_TCP), 3 /* TCP_CORK */, &value, socklen_t(MemoryLayout<Int32>.size))
    }
}
