import Platform
#if canImport(Glibc)
import Glibc
#endif
import CMosquitto
import Logging
import Synchronization

/// One MQTT connection over libmosquitto, with its own network thread that never gives up.
///
/// Files: this one holds the state (which lock guards what), set-up, start and disconnect;
/// `MQTTClient+Callbacks` (libmosquitto's C callbacks and what they update),
/// `MQTTClient+NetworkLoop` (connect, back off, reconnect), `MQTTClient+Socket` (who writes to
/// the socket, `poll(2)`, the wake pipe, `TCP_CORK`), `MQTTClient+Publishing` (the one publish
/// path, subscriptions), `MQTTClient+Statistics` (counters, fault injection).
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
    let logger = Logger(label: "mqtt")
    let context: String

    /// `struct mosquitto *`. Only the network thread connects/loops/destroys it; `publish` and
    /// `subscribe` use it under `handleState`'s lock, which also records whether it is still alive.
    nonisolated(unsafe) let handle: OpaquePointer

    struct HandleState {
        var alive = true
        /// Message ids of QoS ≥ 1 publishes not yet acknowledged (PUBACK / PUBCOMP), with their
        /// topic (a reference to the caller's string, no copy), so a refusal names its topic.
        var outstanding = [Int32: String](minimumCapacity: 256)
        var subscriptions: [(pattern: String, qos: Int32)] = []
    }
    let handleState = Mutex(HandleState())
    /// Held around every libmosquitto call that reads, writes, opens or closes the socket when
    /// publishers write themselves (plain TCP); `false` once the handle is destroyed. Lock order:
    /// `socketLock`, then `handleState` (callbacks run inside it and may take `handleState`).
    let socketLock = Mutex<Bool>(true)
    /// Whether publishers write their packets on their own thread (plain TCP; not over TLS).
    let publishersWrite: Bool
    /// Wakes the network thread out of `poll(2)` (plain TCP): unfinished writes, stop.
    let wakeup: WakeupPipe?
    /// The thread holding `socketLock` (`pthread_self()`, 0 when none): a publish from a callback
    /// that runs inside a read or write leaves its packet to the write loop already running there
    /// (which takes queued packets until the queue is empty) instead of taking the lock again.
    let socketOwner = Atomic<UInt>(0)
    /// QoS ≥ 1 publishes started and not yet acknowledged (an upper bound of `outstanding.count`,
    /// raised before `mosquitto_publish`): lets a QoS 0 completion skip `handleState`'s lock,
    /// which `publish` holds around `mosquitto_publish` on another thread.
    let outstandingCount = Atomic<Int>(0)

    struct Callbacks {
        var onMessage: (@Sendable (MQTTMessage) -> Void)?
        var onConnectionChange: (@Sendable (MQTTConnectionState) -> Void)?
        /// The attached outbox's observer (`Outbox.attach`), called after `onConnectionChange`:
        /// the outbox follows the connection itself, so no owner has to forward changes.
        var outboxConnectionChange: (@Sendable (MQTTConnectionState) -> Void)?
        var onPublishAcknowledged: (@Sendable (Int32) -> Void)?
        var onPublishRefused: (@Sendable (Int32, Int32) -> Void)?
    }
    let callbacks = Mutex(Callbacks())

    let signal = Condition()
    let connectedFlag = Atomic<Bool>(false)
    let startedFlag = Atomic<Bool>(false)
    let stopRequested = Atomic<Bool>(false)
    let threadExited = Atomic<Bool>(false)
    /// Monotonic ns by which the network thread must have flushed its DISCONNECT and exited.
    let stopDeadline = Atomic<UInt64>(0)
    /// CONNACK / reason code of the current attempt when the broker refused it (-1: none).
    let refusalCode = Atomic<Int32>(-1)
    /// Set from the MQTT 5 CONNACK property `retain_available`; libmosquitto then clears retain silently.
    let retainUnavailable = Atomic<Bool>(false)
    let retainWarningLogged = Atomic<Bool>(false)
    let thread = Mutex<PlatformThread?>(nil)
    /// Starts the network thread (`platformThreadStarter` unless a test or the agent passes one).
    let threadStarter: ThreadStarter
    /// The last error/warning libmosquitto logged during the current attempt (e.g. OpenSSL's
    /// "certificate verify failed"), appended to the failure's detail.
    let lastLibraryMessage = Mutex<String?>(nil)
    let lastFailureState = Mutex<MQTTError?>(nil)
    let refusalState = Mutex(MQTTPublishRefusals())

    let publishedCount = Atomic<Int>(0)
    let publishFailureCount = Atomic<Int>(0)
    let acknowledgedCount = Atomic<Int>(0)
    let receivedCount = Atomic<Int>(0)
    let connectAttemptCount = Atomic<Int>(0)
    let connectionCount = Atomic<Int>(0)
    let subscribeAckCount = Atomic<Int>(0)
    let networkWakeupCount = Atomic<Int>(0)
    let deferredWriteCount = Atomic<Int>(0)

    // MARK: Set-up

    /// Creates the libmosquitto handle and applies will, credentials, TLS and protocol options.
    /// Does not touch the network; call `start()`.
    /// The corresponding C functions are `mosquitto_new`, `mosquitto_will_set`,
    /// `mosquitto_username_pw_set`, `mosquitto_tls_set`, `mosquitto_tls_opts_set`,
    /// `mosquitto_tls_insecure_set`, `mosquitto_int_option`, `mosquitto_threaded_set`.
    public convenience init(options: MQTTConnectionOptions) throws(MQTTError) {
        try self.init(options: options, threadStarter: platformThreadStarter)
    }

    /// The same with the network thread started by `threadStarter` (the agent passes its own;
    /// tests make `pthread_create` fail).
    package init(options: MQTTConnectionOptions, threadStarter: @escaping ThreadStarter) throws(MQTTError) {
        self.threadStarter = threadStarter
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

    static func configure(_ h: OpaquePointer, options: MQTTConnectionOptions, context ctx: String,
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
            let version = (tls.version ?? .tlsv1_2).rawValue
            try check(mosquitto_tls_opts_set(h, 1, version, tls.ciphers),
                      "mosquitto_tls_opts_set (version \(version), ciphers \(tls.ciphers ?? "default"))")
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
    /// `disconnect`). The owner's observer; an attached `Outbox` observes the connection on its own
    /// (it is told after this one), so setting this does not detach it.
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

    // MARK: Running

    /// Starts the network thread, which connects (`mosquitto_connect_async`) and reconnects with
    /// capped, fully-jittered exponential backoff until `disconnect(timeout:)`. Returns immediately.
    /// - Throws: `.notRunning` if the client was already started or stopped; `.threadStart` if the
    ///   network thread (`em-mqtt`) cannot be created (the client can be started again later).
    public func start() throws(MQTTError) {
        guard !startedFlag.exchange(true, ordering: .acquiringAndReleasing) else {
            throw MQTTError(.notRunning, context: context, detail: "start() called twice")
        }
        guard !stopRequested.load(ordering: .acquiring) else {
            throw MQTTError(.notRunning, context: context, detail: "the client was disconnected")
        }
        do throws(ThreadStartError) {
            // The thread holds the client until its loop ends.
            let started = try threadStarter("em-mqtt") { self.runNetworkLoop() }
            thread.withLock { $0 = started }
        } catch {
            startedFlag.store(false, ordering: .releasing)
            throw MQTTError(.threadStart(error), context: context, detail: "pthread_create failed: \(error.errno)")
        }
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

        if let tid = thread.withLock({ t -> PlatformThread? in defer { t = nil }; return t }) {
            if signal.wait(untilNanos: deadline, { threadExited.load(ordering: .acquiring) }) {
                tid.join()   // returns at once: the thread has finished its work
            } else {
                logger.warning("network thread did not stop in time; detaching it", ["broker": context])
                tid.detach()
            }
        } else if !startedFlag.load(ordering: .acquiring) {
            let alive = handleState.withLock { st -> Bool in defer { st.alive = false }; return st.alive }
            if alive { mosquitto_destroy(handle) }
        }
        guard !alreadyStopping else { return }
        logger.info("disconnected", ["broker": context])
        emit(.stopped)
    }
}
