#if canImport(Glibc)
import Glibc
#endif
import CMosquitto
import Logging
import Platform
import Synchronization

extension MQTTClient {
    /// The network thread: connect, loop, back off, repeat — until stop is requested. The I/O is
    /// here; what it means (attempt timed out, backoff reset, lost or failed, how long to wait) is
    /// decided by the pure `ConnectionSupervisor`.
    func runNetworkLoop() {
        var supervisor = ConnectionSupervisor(policy: options.reconnect)
        let host = options.address.host
        let port = Int32(options.address.port)
        let keepAlive = Int32(options.keepAlive)

        while !stopRequested.load(ordering: .acquiring) {
            connectAttemptCount.add(1, ordering: .relaxed)
            refusalCode.store(-1, ordering: .relaxed)
            lastLibraryMessage.withLock { $0 = nil }
            if publishersWrite { setLibraryLogging(true) }
            emit(.connecting(attempt: supervisor.nextAttemptNumber))
            if options.tls?.insecure == true {
                logger.warning("connecting with TLS hostname verification DISABLED", ["broker": context])
            }

            // connect_async re-stores host/port each time and closes any previous socket, so it
            // also serves as the reconnect call (and works even if the very first attempt failed
            // before libmosquitto remembered the host).
            errno = 0
            var rc = withSocket { mosquitto_connect_async(handle, host, port, keepAlive) }
            var failure: MQTTError?
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                let err = errno
                failure = MQTTError(mosquittoCode: rc, errno: err, context: context)
                // Codes other than MOSQ_ERR_ERRNO do not carry errno; when a system call did fail,
                // keep the system's words as well.
                if rc != MOSQ_ERR_ERRNO.rawValue && err != 0 {
                    failure?.detail += "; system: " + Errno(err).text + " (" + MQTTError.errnoName(err) + ")"
                }
            } else {
                supervisor.beginAttempt(now: MonotonicClock.nowNanos())
                while !stopRequested.load(ordering: .acquiring) {
                    errno = 0
                    rc = publishersWrite
                        ? serviceSocket(timeoutMilliseconds: supervisor.isConnected ? 1000 : 200)
                        : mosquitto_loop(handle, 200, 1)
                    let err = errno
                    if !supervisor.isConnected && connectedFlag.load(ordering: .acquiring) {
                        supervisor.connected(now: MonotonicClock.nowNanos())
                    }
                    if rc != MOSQ_ERR_SUCCESS.rawValue {
                        let refused = refusalCode.load(ordering: .relaxed)
                        failure = refused >= 0
                            ? MQTTError.refusal(code: refused, credentialsSent: options.username != nil, context: context,
                                                detail: "client id \"\(options.clientID)\", keepalive \(options.keepAlive) s"
                                                    + (options.username.map { ", user \"\($0)\"" } ?? ""))
                            : MQTTError(mosquittoCode: rc, errno: err, context: context)
                        if refused < 0 && rc != MOSQ_ERR_ERRNO.rawValue && err != 0 {
                            failure?.detail += "; system: " + Errno(err).text + " (" + MQTTError.errnoName(err) + ")"
                        }
                        break
                    }
                    if supervisor.attemptTimedOut(now: MonotonicClock.nowNanos()) {
                        failure = MQTTError(.timeout, context: context,
                                            detail: "no CONNACK within \(options.reconnect.connectTimeout.millisecondsText)")
                        break
                    }
                }
            }
            if stopRequested.load(ordering: .acquiring) { break }

            connectedFlag.store(false, ordering: .releasing)
            signal.notifyAll()
            let ending = supervisor.ended(now: MonotonicClock.nowNanos())
            let wasConnected = ending.wasConnected, delay = ending.retryIn
            var error = failure ?? MQTTError(.connectionLost, context: context)
            if let text = lastLibraryMessage.withLock({ $0 }) {
                error.detail += (error.detail.isEmpty ? "" : "; ") + "libmosquitto: " + text
            }
            if !wasConnected, let hint = protocolHint(for: error) {
                error.detail += (error.detail.isEmpty ? "" : "; ") + hint
            }
            lastFailureState.withLock { $0 = error }
            if wasConnected {
                logger.warning("connection lost", ["broker": context, "error": error.description,
                                                   "retryInMs": String(delay.milliseconds)])
                emit(.connectionLost(error, retryIn: delay))
            } else {
                logger.warning("connect failed", ["broker": context, "attempt": String(ending.failures),
                                                  "error": error.description, "retryInMs": String(delay.milliseconds)])
                emit(.connectionFailed(error, retryIn: delay))
            }
            signal.wait(untilNanos: MonotonicClock.deadline(after: delay)) { stopRequested.load(ordering: .acquiring) }
        }
        finishNetworkLoop()
    }

    /// A hint for a failed MQTT 5 attempt that reached the broker but never got a usable CONNACK:
    /// a broker that speaks only MQTT 3.1.1 answers a version-5 CONNECT with CONNACK 1
    /// ("unacceptable protocol version", which libmosquitto reads as a malformed v5 CONNACK) or
    /// just closes the connection.
    func protocolHint(for error: MQTTError) -> String? {
        guard options.protocolVersion == .v5 else { return nil }
        switch error.kind {
        case .brokerRefused(code: 1), .brokerRefused(code: 132), .protocolError, .connectionLost:
            return "the broker reached may speak MQTT 3.1.1 only: set mqtt.protocol: \"3.1.1\" (or enable MQTT 5 on the broker)"
        default:
            return nil
        }
    }

    /// Stop path on the network thread: send DISCONNECT (suppresses the will), let the loop write it
    /// until the socket closes or the stop deadline passes, then destroy the handle.
    func finishNetworkLoop() {
        if connectedFlag.load(ordering: .acquiring) {
            let rc = withSocket { mosquitto_disconnect(handle) }
            if rc == MOSQ_ERR_SUCCESS.rawValue {
                let deadline = stopDeadline.load(ordering: .acquiring)
                while MonotonicClock.nowNanos() < deadline {
                    // Returns non-zero once the DISCONNECT was written and the socket closed.
                    let done = publishersWrite ? serviceSocket(timeoutMilliseconds: 50) : mosquitto_loop(handle, 50, 1)
                    if done != MOSQ_ERR_SUCCESS.rawValue { break }
                }
            }
        }
        connectedFlag.store(false, ordering: .releasing)
        withSocketLock { alive in
            alive = false
            handleState.withLock { st in
                st.alive = false
                mosquitto_destroy(handle)
            }
        }
        threadExited.store(true, ordering: .releasing)
        signal.notifyAll()
    }
}
