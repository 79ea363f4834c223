import MotionCore
#if canImport(Glibc)
import Glibc
#endif
import CMosquitto
import Logging
import Synchronization

/// One MQTT connection over libmosquitto, with its own network thread that never gives up.
///
/// Life cycle: `init(options:)` → set callbacks → `subscribe(_:qos:)` (optional, renewed on every
/// connection) → `start()` → `publish(…)` from any thread → `disconnect(timeout:)`.
/// A started client stays alive (its network thread holds it) until `disconnect(timeout:)`.
///
/// Why our own thread instead of `mosquitto_loop_start`: libmosquitto 2.0.11's `loop_forever` (and so
/// the `loop_start` thread) returns for good on "fatal" errors (NOMEM, PROTOCOL, TLS, AUTH, EAI, …),
/// after which every publish fails with `MOSQ_ERR_NO_CONN` silently; its built-in backoff is quadratic
/// and unjittered. Our thread runs the loop itself and treats *any* error as "back off with full
/// jitter, then `mosquitto_connect_async` again".
///
/// Who writes to the socket: over plain TCP the thread that publishes writes its packets itself
/// (`mosquitto_loop_write` right after `mosquitto_publish`, or once after several with `flush()`), so
/// a published burst costs no wake-up of the network thread; that thread sleeps in `poll(2)` on the
/// socket and a self-pipe and wakes only for incoming packets (CONNACK, PUBACK, PINGRESP), when a
/// write could not finish (socket buffer full) or to stop. One lock (`socketLock`) serialises every
/// libmosquitto call that reads, writes, opens or closes the socket, so a write never meets a
/// socket being closed (libmosquitto itself supports socket work on one thread only). Over TLS,
/// where one OpenSSL connection must not be read and written from two threads, the network thread
/// does all socket work in `mosquitto_loop` and publishers only queue (libmosquitto wakes it).
///
/// Threading: `publish`, `subscribe`, `isConnected`, `statistics` and `disconnect` are safe from any
/// thread. Callbacks run on the network thread — and a QoS 0 `onPublishAcknowledged` on the thread
/// that wrote the packet — and must stay tiny (copy and hand off; never block, never call
/// `disconnect` from them).
public final class MQTTClient: Sendable {
    /// The options this client was created with.
    public let options: MQTTConnectionOptions
    private let logger = Logger(label: "mqtt")
    private let context: String

    /// `struct mosquitto *`. Only the network thread connects/loops/destroys it; `publish` and
    /// `subscribe` use it under `handleState`'s lock, which also records whether it is still alive.
    nonisolated(unsafe) private let handle: OpaquePointer

    private struct HandleState {
        var alive = true
        /// Message ids of QoS ≥ 1 publishes not yet acknowledged (PUBACK / PUBCOMP), with their
        /// topic (a reference to the caller's string, no copy), so a refusal names its topic.
        var outstanding = [Int32: String](minimumCapacity: 256)
        var subscriptions: [(pattern: String, qos: Int32)] = []
    }
    private let handleState = Mutex(HandleState())
    /// Held around every libmosquitto call that reads, writes, opens or closes the socket when
    /// publishers write themselves (plain TCP); `false` once the handle is destroyed. Lock order:
    /// `socketLock`, then `handleState` (callbacks run inside it and may take `handleState`).
    private let socketLock = Mutex<Bool>(true)
    /// Whether publishers write their packets on their own thread (plain TCP; not over TLS).
    private let publishersWrite: Bool
    /// Wakes the network thread out of `poll(2)` (plain TCP): unfinished writes, stop.
    private let wakeup: WakeupPipe?
    /// The thread holding `socketLock` (`pthread_self()`, 0 when none): a publish from a callback
    /// that runs inside a read or write leaves its packet to the write loop already running there
    /// (which takes queued packets until the queue is empty) instead of taking the lock again.
    private let socketOwner = Atomic<UInt>(0)
    /// QoS ≥ 1 publishes started and not yet acknowledged (an upper bound of `outstanding.count`,
    /// raised before `mosquitto_publish`): lets a QoS 0 completion skip `handleState`'s lock,
    /// which `publish` holds around `mosquitto_publish` on another thread.
    private let outstandingCount = Atomic<Int>(0)

    private struct Callbacks {
        var onMessage: (@Sendable (MQTTMessage) -> Void)?
        var onConnectionChange: (@Sendable (MQTTConnectionState) -> Void)?
        var onPublishAcknowledged: (@Sendable (Int32) -> Void)?
        var onPublishRefused: (@Sendable (Int32, Int32) -> Void)?
    }
    private let callbacks = Mutex(Callbacks())

    private let signal = ChangeSignal()
    private let connectedFlag = Atomic<Bool>(false)
    private let startedFlag = Atomic<Bool>(false)
    private let stopRequested = Atomic<Bool>(false)
    private let threadExited = Atomic<Bool>(false)
    /// Monotonic ns by which the network thread must have flushed its DISCONNECT and exited.
    private let stopDeadline = Atomic<UInt64>(0)
    /// CONNACK / reason code of the current attempt when the broker refused it (-1: none).
    private let refusalCode = Atomic<Int32>(-1)
    /// Set from the MQTT 5 CONNACK property `retain_available`; libmosquitto then clears retain silently.
    private let retainUnavailable = Atomic<Bool>(false)
    private let retainWarningLogged = Atomic<Bool>(false)
    private let thread = Mutex<pthread_t?>(nil)
    /// The last error/warning libmosquitto logged during the current attempt (e.g. OpenSSL's
    /// "certificate verify failed"), appended to the failure's detail.
    private let lastLibraryMessage = Mutex<String?>(nil)
    private let lastFailureState = Mutex<MQTTError?>(nil)
    private let refusalState = Mutex(MQTTPublishRefusals())

    private let publishedCount = Atomic<Int>(0)
    private let publishFailureCount = Atomic<Int>(0)
    private let acknowledgedCount = Atomic<Int>(0)
    private let receivedCount = Atomic<Int>(0)
    private let connectAttemptCount = Atomic<Int>(0)
    private let connectionCount = Atomic<Int>(0)
    private let subscribeAckCount = Atomic<Int>(0)
    private let networkWakeupCount = Atomic<Int>(0)
    private let deferredWriteCount = Atomic<Int>(0)

    // MARK: Set-up

    /// Creates the libmosquitto handle and applies will, credentials, TLS and protocol options.
    /// Does not touch the network; call `start()`.
    /// The corresponding C functions are `mosquitto_new`, `mosquitto_will_set`,
    /// `mosquitto_username_pw_set`, `mosquitto_tls_set`, `mosquitto_tls_opts_set`,
    /// `mosquitto_tls_insecure_set`, `mosquitto_int_option`, `mosquitto_threaded_set`.
    public init(options: MQTTConnectionOptions) throws(MQTTError) {
        try options.validate()
        MosquittoLibrary.ensureInitialized()
        let ctx = options.address.hostPort
        self.options = options
        self.context = ctx
        wakeup = options.address.useTLS ? nil : WakeupPipe()
        publishersWrite = wakeup != nil

        errno = 0
        let created = options.clientID.isEmpty
            ? mosquitto_new(nil, options.cleanSession, nil)
            : mosquitto_new(options.clientID, options.cleanSession, nil)
        guard let created else {
            throw MQTTError(errno == ENOMEM ? .outOfMemory : .invalidOptions, context: ctx,
                            detail: "mosquitto_new failed for client id \"\(options.clientID)\"")
        }
        handle = created

        do throws(MQTTError) {
            try MQTTClient.configure(created, options: options, context: ctx, logger: logger)
        } catch {
            mosquitto_destroy(created)
            handleState.withLock { $0.alive = false }
            throw error
        }
        installCallbacks()
    }

    deinit {
        // A started client is retained by its network thread, which destroys the handle itself;
        // here we only clean up a client that never ran.
        let alive = handleState.withLock { st -> Bool in
            let a = st.alive
            st.alive = false
            return a
        }
        if alive { mosquitto_destroy(handle) }
    }

    private static func configure(_ h: OpaquePointer, options: MQTTConnectionOptions, context ctx: String,
                                  logger: Logger) throws(MQTTError) {
        func check(_ rc: Int32, _ what: String) throws(MQTTError) {
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                var e = MQTTError(mosquittoCode: rc, errno: errno, context: ctx)
                e.detail = what + (e.detail.isEmpty ? "" : ": " + e.detail)
                throw e
            }
        }
        try check(mosquitto_int_option(h, MOSQ_OPT_PROTOCOL_VERSION, options.protocolVersion.mosquittoValue),
                  "setting the protocol version")
        _ = mosquitto_int_option(h, MOSQ_OPT_TCP_NODELAY, 1)
        try check(mosquitto_threaded_set(h, true), "mosquitto_threaded_set")

        if let will = options.will {
            let rc = will.payload.withUnsafeBytes { p in
                mosquitto_will_set(h, will.topic, Int32(p.count), p.baseAddress, Int32(will.qos), will.retain)
            }
            try check(rc, "setting the will on \(will.topic)")
        }
        if let user = options.username {
            try check(mosquitto_username_pw_set(h, user, options.password), "setting username/password")
        }
        if options.address.useTLS {
            var tls = options.tls ?? MQTTTLSOptions()
            if tls.caFile == nil && tls.caPath == nil { tls.caPath = "/etc/ssl/certs" }
            try check(mosquitto_tls_set(h, tls.caFile, tls.caPath, tls.certFile, tls.keyFile, nil),
                      "mosquitto_tls_set (caFile \(tls.caFile ?? "-"), caPath \(tls.caPath ?? "-"), certFile \(tls.certFile ?? "-"), keyFile \(tls.keyFile ?? "-"); do the files exist and are they readable?)")
            try check(mosquitto_tls_opts_set(h, 1, tls.version ?? "tlsv1.2", tls.ciphers),
                      "mosquitto_tls_opts_set (version \(tls.version ?? "tlsv1.2"), ciphers \(tls.ciphers ?? "default"))")
            if tls.insecure {
                try check(mosquitto_tls_insecure_set(h, true), "mosquitto_tls_insecure_set")
                logger.warning("TLS hostname verification DISABLED (tls insecure: true) — anyone can impersonate the broker; use only for tests",
                               ["broker": ctx])
            }
        }
    }

    // MARK: Callbacks (set before start; called on the network thread)

    /// Called for every received message on the network thread. Keep it tiny.
    public var onMessage: (@Sendable (MQTTMessage) -> Void)? {
        get { callbacks.withLock { $0.onMessage } }
        set { callbacks.withLock { $0.onMessage = newValue } }
    }

    /// Called on every connection state change, on the network thread (`.stopped` on the caller of
    /// `disconnect`).
    public var onConnectionChange: (@Sendable (MQTTConnectionState) -> Void)? {
        get { callbacks.withLock { $0.onConnectionChange } }
        set { callbacks.withLock { $0.onConnectionChange = newValue } }
    }

    /// Called with the message id when a publish completed: QoS 0 written to the socket, QoS 1 PUBACK,
    /// QoS 2 PUBCOMP. On the network thread.
    public var onPublishAcknowledged: (@Sendable (Int32) -> Void)? {
        get { callbacks.withLock { $0.onPublishAcknowledged } }
        set { callbacks.withLock { $0.onPublishAcknowledged = newValue } }
    }

    /// Called with the message id and the MQTT 5 reason code (≥ 128) when an MQTT 5 broker answered a
    /// QoS ≥ 1 publish with a failure PUBACK/PUBREC — e.g. 135 "not authorised" (ACL), 151 "quota
    /// exceeded". The message was *not* delivered. When unset, such publishes are reported through
    /// `onPublishAcknowledged` as before. MQTT 3.1.1 has no such codes: mosquitto acknowledges a
    /// publish its ACL denies and drops it silently. On the network thread.
    public var onPublishRefused: (@Sendable (Int32, Int32) -> Void)? {
        get { callbacks.withLock { $0.onPublishRefused } }
        set { callbacks.withLock { $0.onPublishRefused = newValue } }
    }

    private func installCallbacks() {
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_connect_v5_callback_set(handle) { _, userdata, rc, _, props in
            guard let userdata else { return }
            Unmanaged<MQTTClient>.fromOpaque(userdata).takeUnretainedValue().handleConnack(rc, props)
        }
        mosquitto_disconnect_v5_callback_set(handle) { _, userdata, _, _ in
            guard let userdata else { return }
            Unmanaged<MQTTClient>.fromOpaque(userdata).takeUnretainedValue().connectedFlag.store(false, ordering: .releasing)
        }
        // The v5 callback also fires for MQTT 3.1.1 (reason 0); it carries the PUBACK reason code,
        // e.g. 135 "not authorised" when an MQTT 5 broker's ACL refuses the topic.
        mosquitto_publish_v5_callback_set(handle) { _, userdata, mid, reason, _ in
            guard let userdata else { return }
            Unmanaged<MQTTClient>.fromOpaque(userdata).takeUnretainedValue().handlePublished(mid, reason: reason)
        }
        mosquitto_subscribe_callback_set(handle) { _, userdata, _, _, _ in
            guard let userdata else { return }
            let client = Unmanaged<MQTTClient>.fromOpaque(userdata).takeUnretainedValue()
            client.subscribeAckCount.add(1, ordering: .relaxed)
            client.signal.notifyAll()
        }
        setLibraryLogging(true)
        // The v5 callback also fires for MQTT 3.1.1 connections, with no properties.
        mosquitto_message_v5_callback_set(handle) { _, userdata, message, props in
            guard let userdata, let message else { return }
            Unmanaged<MQTTClient>.fromOpaque(userdata).takeUnretainedValue().handleMessage(message.pointee, props)
        }
    }

    /// Installs or removes libmosquitto's log callback. With one installed, libmosquitto formats
    /// every log line (debug included: `vsnprintf` and a `malloc` per packet written), while we keep
    /// only errors and warnings for a failure's detail. Over plain TCP it is therefore on only
    /// while connecting (where those details come from); over TLS always (OpenSSL's words).
    private func setLibraryLogging(_ on: Bool) {
        guard on else {
            mosquitto_log_callback_set(handle, nil)
            return
        }
        mosquitto_log_callback_set(handle) { _, userdata, level, text in
            guard let userdata, let text, level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING) != 0 else { return }
            let message = String(cString: text)
            Unmanaged<MQTTClient>.fromOpaque(userdata).takeUnretainedValue().lastLibraryMessage.withLock { $0 = message }
        }
    }

    private func handleConnack(_ rc: Int32, _ props: OpaquePointer?) {
        guard rc == 0 else {
            refusalCode.store(rc, ordering: .relaxed)
            return
        }
        if let props {
            var available: UInt8 = 1
            if mosquitto_property_read_byte(props, 37 /* MQTT_PROP_RETAIN_AVAILABLE */, &available, false) != nil {
                retainUnavailable.store(available == 0, ordering: .relaxed)
            }
        }
        let n = connectionCount.add(1, ordering: .relaxed).newValue
        connectedFlag.store(true, ordering: .releasing)
        if publishersWrite { setLibraryLogging(false) }
        // Clean sessions forget subscriptions: renew them on every connection.
        let subs = handleState.withLock { $0.subscriptions }
        for s in subs {
            let rc = mosquitto_subscribe(handle, nil, s.pattern, s.qos)
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                logger.warning("subscribe failed", ["broker": context, "pattern": s.pattern,
                                                    "error": MQTTError(mosquittoCode: rc, context: context).description])
            }
        }
        logger.info(n == 1 ? "connected" : "reconnected", ["broker": context, "clientID": options.clientID])
        signal.notifyAll()
        emit(.connected)
    }

    private func handlePublished(_ mid: Int32, reason: Int32) {
        acknowledgedCount.add(1, ordering: .relaxed)
        var topic: String?
        if outstandingCount.load(ordering: .acquiring) > 0 {
            topic = handleState.withLock { $0.outstanding.removeValue(forKey: mid) }
            if topic != nil {
                outstandingCount.subtract(1, ordering: .releasing)
                signal.notifyAll()
            }
        }
        if reason >= 0x80 { noteRefusal(topic: topic ?? "?", reason: reason) }
        if reason >= 0x80, let refused = callbacks.withLock({ $0.onPublishRefused }) {
            refused(mid, reason)
        } else if let cb = callbacks.withLock({ $0.onPublishAcknowledged }) {
            cb(mid)
        }
    }

    /// Counts an MQTT 5 refusal (PUBACK/PUBREC reason ≥ 0x80) of a publish on `topic`, whoever
    /// published it (the outbox, `status`, `meta`, a reply), and names each refused topic once in
    /// the log.
    private func noteRefusal(topic: String, reason: Int32) {
        let first = refusalState.withLock { r -> Bool in
            let isNew = r.byTopic[topic] == nil
            r.byTopic[topic, default: MQTTPublishRefusals.Topic(reason: reason)].count += 1
            r.byTopic[topic]?.reason = reason
            r.total += 1
            r.last = "broker refused publishes on \(topic): MQTT 5 reason \(reason) (\(MQTTError.pubackReason(reason)))"
            return isNew
        }
        if first {
            logger.warning("the broker refuses publishes on this topic (logged once per topic; counted in stats mqtt_refused)",
                           ["broker": context, "topic": topic, "reason": "\(reason) \(MQTTError.pubackReason(reason))"])
        }
    }

    /// Publishes the broker refused (MQTT 5 reason codes ≥ 0x80), per topic, since `start()`.
    /// Always empty over MQTT 3.1.1, whose brokers acknowledge what their ACL drops, and for
    /// QoS 0, which has no acknowledgement: their delivery is unknowable.
    public var refusals: MQTTPublishRefusals { refusalState.withLock { $0 } }

    private func handleMessage(_ m: mosquitto_message, _ props: OpaquePointer?) {
        receivedCount.add(1, ordering: .relaxed)
        guard let cb = callbacks.withLock({ $0.onMessage }) else { return }
        let topic = m.topic.map { String(cString: $0) } ?? ""
        let payload: [UInt8] = m.payloadlen > 0 && m.payload != nil
            ? Array(UnsafeRawBufferPointer(start: m.payload, count: Int(m.payloadlen)))
            : []
        var message = MQTTMessage(topic: topic, payload: payload, qos: Int(m.qos), retain: m.retain)
        if let props {
            var text: UnsafeMutablePointer<CChar>?
            if mosquitto_property_read_string(props, 8 /* MQTT_PROP_RESPONSE_TOPIC */, &text, false) != nil, let text {
                message.responseTopic = String(cString: text)
                free(text)
            }
            var data: UnsafeMutableRawPointer?
            var length: UInt16 = 0
            if mosquitto_property_read_binary(props, 9 /* MQTT_PROP_CORRELATION_DATA */, &data, &length, false) != nil {
                message.correlationData = data.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(length))) } ?? []
                free(data)
            }
        }
        cb(message)
    }

    private func emit(_ state: MQTTConnectionState) {
        if let cb = callbacks.withLock({ $0.onConnectionChange }) { cb(state) }
    }

    // MARK: Running

    /// Starts the network thread, which connects (`mosquitto_connect_async`) and reconnects with
    /// capped, fully-jittered exponential backoff until `disconnect(timeout:)`. Returns immediately.
    /// - Throws: `.notRunning` if the client was already started or stopped; `.system` if the thread
    ///   cannot be created.
    public func start() throws(MQTTError) {
        guard !startedFlag.exchange(true, ordering: .acquiringAndReleasing) else {
            throw MQTTError(.notRunning, context: context, detail: "start() called twice")
        }
        guard !stopRequested.load(ordering: .acquiring) else {
            throw MQTTError(.notRunning, context: context, detail: "the client was disconnected")
        }
        let box = Unmanaged.passRetained(self).toOpaque()
        var tid = pthread_t()
        let rc = pthread_create(&tid, nil, { arg in
            let client = Unmanaged<MQTTClient>.fromOpaque(arg!).takeRetainedValue()
            client.runNetworkLoop()
            return nil
        }, box)
        guard rc == 0 else {
            Unmanaged<MQTTClient>.fromOpaque(box).release()
            startedFlag.store(false, ordering: .releasing)
            throw MQTTError(.system(errno: rc), context: context, detail: "pthread_create for the MQTT network thread failed")
        }
        thread.withLock { $0 = tid }
    }

    /// `false` once an MQTT 5 broker announced `retain_available = 0` in its CONNACK; libmosquitto then
    /// clears the retain flag of every publish silently (status, activity and discovery would not persist).
    /// Always `true` over MQTT 3.1.1, which cannot announce it (mosquitto with `retain_available false`
    /// then drops 3.1.1 clients that publish retained messages).
    public var brokerAcceptsRetain: Bool { !retainUnavailable.load(ordering: .relaxed) }

    /// Why the last connection attempt (or connection) failed; nil before any failure. Kept after
    /// a later success, so a caller that waited in vain can say why.
    public var lastFailure: MQTTError? { lastFailureState.withLock { $0 } }

    /// Whether CONNACK 0 was received and the connection has not been lost since.
    public var isConnected: Bool { connectedFlag.load(ordering: .acquiring) }

    /// Blocks the caller until connected or `timeout` elapses.
    /// - Returns: `true` when connected.
    public func waitUntilConnected(timeout: Duration) -> Bool {
        signal.wait(untilNanos: MonotonicClock.deadline(after: timeout)) { connectedFlag.load(ordering: .acquiring) }
    }

    /// The network thread: connect, loop, back off, repeat — until stop is requested.
    private func runNetworkLoop() {
        ThreadName.setCurrent("em-mqtt")
        var backoff = ReconnectBackoff(policy: options.reconnect)
        let host = options.address.host
        let port = Int32(options.address.port)
        let keepAlive = Int32(options.keepAlive)
        let connectTimeoutNanos = UInt64(max(1, options.reconnect.connectTimeout.milliseconds)) * 1_000_000
        let stableNanos = UInt64(max(0, options.reconnect.stableAfter.milliseconds)) * 1_000_000

        while !stopRequested.load(ordering: .acquiring) {
            connectAttemptCount.add(1, ordering: .relaxed)
            refusalCode.store(-1, ordering: .relaxed)
            lastLibraryMessage.withLock { $0 = nil }
            if publishersWrite { setLibraryLogging(true) }
            emit(.connecting(attempt: backoff.failures + 1))
            if options.tls?.insecure == true {
                logger.warning("connecting with TLS hostname verification DISABLED", ["broker": context])
            }

            // connect_async re-stores host/port each time and closes any previous socket, so it
            // also serves as the reconnect call (and works even if the very first attempt failed
            // before libmosquitto remembered the host).
            errno = 0
            var rc = withSocket { mosquitto_connect_async(handle, host, port, keepAlive) }
            var failure: MQTTError?
            var connectedAt: UInt64?
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                let err = errno
                failure = MQTTError(mosquittoCode: rc, errno: err, context: context)
                // Codes other than MOSQ_ERR_ERRNO do not carry errno; when a system call did fail,
                // keep the system's words as well.
                if rc != MOSQ_ERR_ERRNO.rawValue && err != 0, let text = strerror(err) {
                    failure?.detail += "; system: " + String(cString: text) + " (" + MQTTError.errnoName(err) + ")"
                }
            } else {
                let attemptStart = MonotonicClock.nowNanos()
                while !stopRequested.load(ordering: .acquiring) {
                    errno = 0
                    rc = publishersWrite
                        ? serviceSocket(timeoutMilliseconds: connectedAt == nil ? 200 : 1000)
                        : mosquitto_loop(handle, 200, 1)
                    let err = errno
                    if connectedAt == nil && connectedFlag.load(ordering: .acquiring) {
                        connectedAt = MonotonicClock.nowNanos()
                    }
                    if rc != MOSQ_ERR_SUCCESS.rawValue {
                        let refused = refusalCode.load(ordering: .relaxed)
                        failure = refused >= 0
                            ? MQTTError.refusal(code: refused, credentialsSent: options.username != nil, context: context,
                                                detail: "client id \"\(options.clientID)\", keepalive \(options.keepAlive) s"
                                                    + (options.username.map { ", user \"\($0)\"" } ?? ""))
                            : MQTTError(mosquittoCode: rc, errno: err, context: context)
                        if refused < 0 && rc != MOSQ_ERR_ERRNO.rawValue && err != 0, let text = strerror(err) {
                            failure?.detail += "; system: " + String(cString: text) + " (" + MQTTError.errnoName(err) + ")"
                        }
                        break
                    }
                    if connectedAt == nil && MonotonicClock.nowNanos() &- attemptStart > connectTimeoutNanos {
                        failure = MQTTError(.timeout, context: context,
                                            detail: "no CONNACK within \(options.reconnect.connectTimeout.millisecondsText)")
                        break
                    }
                }
            }
            if stopRequested.load(ordering: .acquiring) { break }

            let wasConnected = connectedAt != nil
            connectedFlag.store(false, ordering: .releasing)
            signal.notifyAll()
            if let connectedAt, MonotonicClock.nowNanos() &- connectedAt >= stableNanos { backoff.reset() }
            let delay = backoff.nextDelay()
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
                logger.warning("connect failed", ["broker": context, "attempt": String(backoff.failures),
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
    private func protocolHint(for error: MQTTError) -> String? {
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
    private func finishNetworkLoop() {
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

    /// Runs `body` holding `socketLock` when publishers write themselves (so no write meets the
    /// socket being closed or replaced); directly over TLS, where only this thread touches it.
    private func withSocket(_ body: () -> Int32) -> Int32 {
        publishersWrite ? withSocketLock { _ in body() } : body()
    }

    /// Holds `socketLock` around `body`, recording this thread as its owner.
    private func withSocketLock<R>(_ body: (inout Bool) -> R) -> R {
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
    private func serviceSocket(timeoutMilliseconds: Int32) -> Int32 {
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
    private static func setCork(_ fd: Int32, _ on: Bool) {
        var value: Int32 = on ? 1 : 0
        _ = setsockopt(fd, Int32(IPPROTO_TCP), 3 /* TCP_CORK */, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Graceful, bounded shutdown: waits (at most ~70 % of `timeout`) until every QoS ≥ 1 publish is
    /// acknowledged, sends DISCONNECT (so the broker does not publish the will), joins the network thread
    /// and destroys the handle. Returns within `timeout` even if the broker is gone or frozen; if the
    /// thread is stuck in a system call (e.g. DNS) it is detached and cleans up when it returns.
    /// The corresponding C functions are `mosquitto_disconnect` and `mosquitto_destroy`.
    public func disconnect(timeout: Duration) {
        let start = MonotonicClock.nowNanos()
        let total = UInt64(max(0, timeout.milliseconds)) * 1_000_000
        let deadline = start &+ total
        let alreadyStopping = stopRequested.load(ordering: .acquiring)

        if startedFlag.load(ordering: .acquiring) && !alreadyStopping {
            let ackDeadline = start &+ total / 10 * 7
            let drained = signal.wait(untilNanos: ackDeadline) { handleState.withLock { $0.outstanding.isEmpty } }
            if !drained {
                let left = handleState.withLock { $0.outstanding.count }
                logger.warning("disconnecting with unacknowledged QoS≥1 publishes", ["broker": context, "outstanding": String(left)])
            }
        }
        stopDeadline.store(deadline, ordering: .releasing)
        stopRequested.store(true, ordering: .releasing)
        signal.notifyAll()
        wakeup?.wake()

        if let tid = thread.withLock({ t -> pthread_t? in defer { t = nil }; return t }) {
            if signal.wait(untilNanos: deadline, { threadExited.load(ordering: .acquiring) }) {
                pthread_join(tid, nil)   // returns at once: the thread has finished its work
            } else {
                logger.warning("network thread did not stop in time; detaching it", ["broker": context])
                pthread_detach(tid)
            }
        } else if !startedFlag.load(ordering: .acquiring) {
            let alive = handleState.withLock { st -> Bool in defer { st.alive = false }; return st.alive }
            if alive { mosquitto_destroy(handle) }
        }
        guard !alreadyStopping else { return }
        logger.info("disconnected", ["broker": context])
        emit(.stopped)
    }

    // MARK: Publishing and subscribing

    /// Publishes a message. Thread-safe; never waits for the network: over plain TCP the packet is
    /// written to the (non-blocking) socket on the calling thread, and what the socket cannot take
    /// now is finished by the network thread; over TLS libmosquitto queues it and wakes that thread.
    /// `flush: false` only queues it: a caller publishing several messages in a row then calls
    /// `flush()` once.
    ///
    /// QoS 0 while disconnected fails with `.notConnected` (nothing is queued). QoS ≥ 1 while
    /// disconnected is queued by libmosquitto **without bound** and resent after reconnect — callers
    /// that may face long outages keep their own bounded buffer and publish only while connected.
    /// Over MQTT 5, when the broker's CONNACK says `retain_available = 0`, libmosquitto silently clears
    /// `retain`; this is logged once.
    /// - Returns: the message id (`mid`) later passed to `onPublishAcknowledged`.
    /// The corresponding C function is `mosquitto_publish`.
    @discardableResult
    public func publish(topic: String, payload: UnsafeRawBufferPointer, qos: Int, retain: Bool,
                        flush flushNow: Bool = true) throws(MQTTError) -> Int32 {
        guard (0...2).contains(qos) else {
            publishFailureCount.add(1, ordering: .relaxed)
            throw MQTTError(.invalidOptions, context: context + " topic " + topic, detail: "QoS \(qos) must be 0, 1 or 2")
        }
        if retain && retainUnavailable.load(ordering: .relaxed) && !retainWarningLogged.exchange(true, ordering: .relaxed) {
            logger.warning("broker does not support retain (retain_available=0); libmosquitto clears the retain flag silently — status and discovery topics will not persist",
                           ["broker": context, "topic": topic])
        }
        var mid: Int32 = 0
        if qos > 0 { outstandingCount.add(1, ordering: .releasing) }
        let rc: Int32 = handleState.withLock { st in
            guard st.alive else { return Int32.min }
            let rc = topic.withCString { t in
                mosquitto_publish(handle, &mid, t, Int32(truncatingIfNeeded: payload.count), payload.baseAddress, Int32(qos), retain)
            }
            if rc == MOSQ_ERR_SUCCESS.rawValue && qos > 0 { st.outstanding[mid] = topic }
            return rc
        }
        if qos > 0 && rc != MOSQ_ERR_SUCCESS.rawValue { outstandingCount.subtract(1, ordering: .releasing) }
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            publishFailureCount.add(1, ordering: .relaxed)
            if rc == Int32.min {
                throw MQTTError(.notRunning, context: context + " topic " + topic, detail: "the client was disconnected")
            }
            var e = MQTTError(mosquittoCode: rc, context: context + " topic " + topic)
            if e.kind == .invalidArgument || e.kind == .malformedUTF8 {
                e = MQTTError(.invalidTopic, context: context + " topic " + topic, detail: e.detail)
            }
            throw e
        }
        publishedCount.add(1, ordering: .relaxed)
        if flushNow { flush() }
        return mid
    }

    /// Publishes an MQTT 5 response: `correlationData` (from the request) is attached as the
    /// correlation-data property when this connection speaks MQTT 5; over 3.1.1 the bytes are
    /// published without it (3.1.1 requesters put their own id in the request payload).
    /// The corresponding C function is `mosquitto_publish_v5`.
    @discardableResult
    public func publish(topic: String, payload: [UInt8], qos: Int, correlationData: [UInt8]?) throws(MQTTError) -> Int32 {
        guard let correlationData, options.protocolVersion == .v5 else {
            return try publish(topic: topic, payload: payload, qos: qos, retain: false)
        }
        var props: OpaquePointer?
        let added = correlationData.withUnsafeBytes {
            mosquitto_property_add_binary(&props, 9 /* MQTT_PROP_CORRELATION_DATA */, $0.baseAddress, UInt16(truncatingIfNeeded: $0.count))
        }
        defer { mosquitto_property_free_all(&props) }
        guard added == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTError(mosquittoCode: added, context: context + " topic " + topic)
        }
        var mid: Int32 = 0
        if qos > 0 { outstandingCount.add(1, ordering: .releasing) }
        let rc: Int32 = handleState.withLock { st in
            guard st.alive else { return Int32.min }
            let rc = topic.withCString { t in
                payload.withUnsafeBytes {
                    mosquitto_publish_v5(handle, &mid, t, Int32(truncatingIfNeeded: $0.count), $0.baseAddress, Int32(qos), false, props)
                }
            }
            if rc == MOSQ_ERR_SUCCESS.rawValue && qos > 0 { st.outstanding[mid] = topic }
            return rc
        }
        if qos > 0 && rc != MOSQ_ERR_SUCCESS.rawValue { outstandingCount.subtract(1, ordering: .releasing) }
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            publishFailureCount.add(1, ordering: .relaxed)
            if rc == Int32.min { throw MQTTError(.notRunning, context: context + " topic " + topic, detail: "the client was disconnected") }
            throw MQTTError(mosquittoCode: rc, context: context + " topic " + topic)
        }
        publishedCount.add(1, ordering: .relaxed)
        flush()
        return mid
    }

    /// Publishes a request with MQTT 5 response-topic and correlation-data properties (for
    /// clients of request/response topics and for tests). Over 3.1.1 the properties are dropped.
    @discardableResult
    public func publishRequest(topic: String, payload: [UInt8], responseTopic: String, correlationData: [UInt8]) throws(MQTTError) -> Int32 {
        guard options.protocolVersion == .v5 else {
            return try publish(topic: topic, payload: payload, qos: 1, retain: false)
        }
        var props: OpaquePointer?
        defer { mosquitto_property_free_all(&props) }
        _ = responseTopic.withCString { mosquitto_property_add_string(&props, 8 /* MQTT_PROP_RESPONSE_TOPIC */, $0) }
        _ = correlationData.withUnsafeBytes {
            mosquitto_property_add_binary(&props, 9 /* MQTT_PROP_CORRELATION_DATA */, $0.baseAddress, UInt16(truncatingIfNeeded: $0.count))
        }
        var mid: Int32 = 0
        let rc: Int32 = handleState.withLock { st in
            guard st.alive else { return Int32.min }
            return topic.withCString { t in
                payload.withUnsafeBytes {
                    mosquitto_publish_v5(handle, &mid, t, Int32(truncatingIfNeeded: $0.count), $0.baseAddress, 1, false, props)
                }
            }
        }
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            if rc == Int32.min { throw MQTTError(.notRunning, context: context + " topic " + topic, detail: "the client was disconnected") }
            throw MQTTError(mosquittoCode: rc, context: context + " topic " + topic)
        }
        flush()
        return mid
    }

    /// Publishes `payload` bytes. See `publish(topic:payload:qos:retain:)`.
    @discardableResult
    public func publish(topic: String, payload: [UInt8], qos: Int = 0, retain: Bool = false) throws(MQTTError) -> Int32 {
        let result = payload.withUnsafeBytes { p -> Result<Int32, MQTTError> in
            do throws(MQTTError) { return .success(try publish(topic: topic, payload: p, qos: qos, retain: retain)) }
            catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Publishes the UTF-8 bytes of `string` (e.g. `online`). See `publish(topic:payload:qos:retain:)`.
    @discardableResult
    public func publish(topic: String, string: String, qos: Int = 0, retain: Bool = false) throws(MQTTError) -> Int32 {
        var s = string
        let result = s.withUTF8 { p -> Result<Int32, MQTTError> in
            do throws(MQTTError) { return .success(try publish(topic: topic, payload: UnsafeRawBufferPointer(p), qos: qos, retain: retain)) }
            catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Publishes a message value. See `publish(topic:payload:qos:retain:)`.
    @discardableResult
    public func publish(_ message: MQTTMessage) throws(MQTTError) -> Int32 {
        try publish(topic: message.topic, payload: message.payload, qos: message.qos, retain: message.retain)
    }

    /// Subscribes to a topic filter (`+` and `#` allowed). Remembered and renewed on every connection;
    /// may be called before `start()`. Messages arrive through `onMessage`.
    /// The corresponding C function is `mosquitto_subscribe`.
    public func subscribe(_ pattern: String, qos: Int) throws(MQTTError) {
        try TopicLayout.validateSubscriptionPattern(pattern)
        guard (0...2).contains(qos) else {
            throw MQTTError(.invalidOptions, context: context + " pattern " + pattern, detail: "QoS \(qos) must be 0, 1 or 2")
        }
        let rc: Int32 = handleState.withLock { st in
            guard st.alive else { return Int32.min }
            st.subscriptions.append((pattern, Int32(qos)))
            guard connectedFlag.load(ordering: .acquiring) else { return MOSQ_ERR_SUCCESS.rawValue }
            return mosquitto_subscribe(handle, nil, pattern, Int32(qos))
        }
        if rc == Int32.min { throw MQTTError(.notRunning, context: context + " pattern " + pattern) }
        flush()
        // NO_CONN: the connection dropped meanwhile; the subscription is renewed on reconnect.
        guard rc == MOSQ_ERR_SUCCESS.rawValue || rc == MOSQ_ERR_NO_CONN.rawValue else {
            throw MQTTError(mosquittoCode: rc, context: context + " pattern " + pattern)
        }
    }

    // MARK: Observability and fault injection

    /// A snapshot of the counters.
    public var statistics: MQTTClientStatistics {
        let connections = connectionCount.load(ordering: .relaxed)
        return MQTTClientStatistics(
            published: publishedCount.load(ordering: .relaxed),
            publishFailures: publishFailureCount.load(ordering: .relaxed),
            acknowledged: acknowledgedCount.load(ordering: .relaxed),
            outstanding: handleState.withLock { $0.outstanding.count },
            received: receivedCount.load(ordering: .relaxed),
            connectAttempts: connectAttemptCount.load(ordering: .relaxed),
            connections: connections,
            reconnects: max(0, connections - 1),
            subscriptionsAcknowledged: subscribeAckCount.load(ordering: .relaxed),
            networkThreadWakeups: networkWakeupCount.load(ordering: .relaxed),
            writesLeftToNetworkThread: deferredWriteCount.load(ordering: .relaxed))
    }

    /// Cuts the TCP connection without sending DISCONNECT, as a crash, power loss or cable pull would:
    /// the broker publishes the will, and this client goes through its normal reconnect path.
    /// For tests and fault injection.
    /// - Returns: `false` if there was no open socket.
    /// The corresponding C function is `mosquitto_socket` (then `shutdown(2)`).
    @discardableResult
    public func dropConnectionAbruptly() -> Bool {
        handleState.withLock { st in
            guard st.alive else { return false }
            let fd = mosquitto_socket(handle)
            guard fd >= 0 else { return false }
            return shutdown(fd, Int32(SHUT_RDWR)) == 0
        }
    }
}
