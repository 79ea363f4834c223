import EdgeMotion
import Logging
import Messaging
import MotionCore
import Sensors
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs the agent: source → pipeline → outbox → MQTT, until a signal, the duration, or the end of
/// a recording; reloads its configuration on SIGHUP; obeys `cmd/…` when `control.enabled`; talks
/// to systemd (`Type=notify`) when `$NOTIFY_SOCKET` is set.
///
/// Everything here runs on the main thread except the callbacks of the MQTT client (network thread),
/// which only hand work over (commands queue, connection errors) under locks.
public final class AgentRunner: @unchecked Sendable {
    public private(set) var configuration: AgentConfiguration
    private let configPath: String?
    private let overrides: ConfigurationOverrides
    private let log = Logger(label: "agent")
    private let notifier = SystemdNotifier()

    // Running parts (main thread).
    private var deviceID = ""
    private var topics: TopicLayout!
    private var outbox: Outbox!
    private var client: MQTTClient!
    private var publisher: MQTTPublisher!
    private var service: MotionService!
    /// The running (or last) pipeline of `service`, for statistics.
    private var pipeline: MotionPipeline!
    /// Sample numbers and counters carried across pipeline restarts (reloads).
    private var continuity = PipelineContinuity()
    /// Activity detection, pedometer and their history (`activity.enabled`).
    private var activity: ActivityPublisher?
    /// Motion events, vibration and tilt thresholds (`events.enabled`).
    private var motionEvents: MotionEventPublisher?
    /// Answers `query/activity` and `query/pedometer` from the history, `query/recordings` from the
    /// recorder's files.
    private let historyResponder = Mutex<HistoryQueryResponder?>(nil)
    /// The recorder's files for `query/recordings` (`recorder.enabled`; fixed until restart).
    private var recordingCatalog: RecordingCatalog?
    /// Newest value per stream for `latest/<stream>` and `query/latest`.
    private let latestSnapshots = Mutex<LatestSnapshots?>(nil)
    private var report: PipelineStartReport?
    private var synthetic: SyntheticEventSource?
    /// Home Assistant discovery and the throttled summary (`home_assistant.enabled`); follows the
    /// installed MQTT client.
    private var homeAssistant: HomeAssistantIntegration?
    /// `auxiliary:` environmental sensors, read and published from the main loop.
    private var auxiliary: AuxiliaryStreams?
    private var reconnectsBase = 0
    /// Index into `brokerURLs(configuration)` of the broker in use (failover moves it on).
    private var brokerIndex = 0
    private var failovers = 0
    /// Outputs besides the publisher: Home Assistant's summary and the recorder, when enabled.
    private var extraOutputs: [any PipelineOutput] = []
    /// Says "device requires movement" once per episode (north-referenced frames).
    private var movementAdvisor: MovementAdvisor?
    /// `cmd/mount`: learning the mount from rest, and the rotations the pipeline applies.
    private var mountControl: MountControl?
    /// `none`, `loaded` or `rejected`: what became of the calibration file (in `meta`).
    private var calibrationState = "none"
    /// A running `cmd/calibrate` gyro calibration: the consumer, its service and when it started.
    private var gyroCalibration: (run: GyroCalibrationRun, service: MotionService, consumer: MotionConsumerID, startNanos: UInt64)?
    /// The web page and `/metrics` (`http.enabled`; Sources/Agent/Dashboard).
    private var dashboard: AgentDashboard?
    /// The file recorder (`recorder.enabled`), for `health`'s storage state.
    private var recorder: FileSensorRecorder?
    /// Storage problems last published in `health` (republished when they change).
    private var storageProblemsSeen: [String] = []
    /// `client.refusals.total` last reported in `health.last_error`.
    private var refusalsSeen = 0
    /// The kind of activity-input problem last published in `health` (`nil`: none), and when
    /// (monotonic ns) it was last logged: one line when it appears, again at most every
    /// `activityInputLogInterval` while it lasts, one when it clears.
    private var activityInputSeen: String?
    private var activityInputLoggedAt: UInt64 = 0
    private static let activityInputLogInterval: UInt64 = 600_000_000_000

    // Shared with the network thread.
    private let meta = Mutex<[UInt8]?>(nil)
    private let commands = Mutex<[MQTTMessage]>([])
    private let lastError = Mutex<(text: String, nanos: UInt64)?>(nil)
    private let healthDirty = Atomic<Bool>(true)
    /// When the source last failed (monotonic ns), for the recovery event's downtime.
    private var sourceFailedAt: UInt64?
    /// Re-open attempts counted when the source last failed.
    private var retriesAtFailure: UInt64 = 0

    /// Builds the source from `source:` settings; tests swap in sources that fail on purpose.
    var makeSource: (AgentConfiguration) throws -> any IMUSource = {
        try SourceFactory.makeSource($0.source, configurationFile: $0.sourceFile, streams: $0.streams)
    }

    /// - Parameters:
    ///   - configPath: the file to re-read on SIGHUP (nil: built-in defaults, reload does nothing).
    ///   - overrides: command-line values re-applied after each reload.
    public init(configuration: AgentConfiguration, configPath: String? = nil, overrides: ConfigurationOverrides = ConfigurationOverrides()) {
        self.configuration = configuration
        self.configPath = configPath
        self.overrides = overrides
    }

    // MARK: Run

    /// Runs until SIGINT/SIGTERM, `duration` seconds, or the end of a replayed recording.
    /// Call `SignalWaiter.blockSignals()` first, before any thread exists.
    /// Returns the process exit status.
    public func run(duration: Double?) -> Int32 {
        let c = configuration
        deviceID = c.device.resolvedID()
        for warning in SecretFileCheck.warnings(for: c) { log.warning("secret readable by other users", ["problem": warning]) }

        guard c.mqtt.broker != nil else {
            log.error("no broker configured", ["hint": "set mqtt.broker in the config or pass --broker mqtt://host:port (scripts/demo starts a private broker)"])
            return 2
        }
        let newClient: MQTTClient
        do {
            topics = try TopicLayout(prefix: c.mqtt.resolvedTopicPrefix(deviceID: deviceID))
            newClient = try makeClient(c, topics: topics)
        } catch {
            log.error("invalid MQTT settings", ["error": "\(error)"])
            return 2
        }

        guard let madeOutbox = makeOutbox(c) else { return 1 }
        outbox = madeOutbox
        publisher = MQTTPublisher(outbox: outbox, routes: routes(c, topics), clock: WallClockMapping.current())

        let source: any IMUSource
        do {
            source = try makeSource(c)
        } catch {
            log.error("cannot open the source", ["error": "\(error)"])
            outbox.stop(timeout: .milliseconds(200))
            return 1
        }

        auxiliary = AuxiliaryStreams.open(c, topics: topics, log: log)
        homeAssistant = HomeAssistantIntegration(configuration: c, deviceID: deviceID, topics: topics,
                                                 sourceName: source.capabilities.name, sensors: source.capabilities.sensors,
                                                 auxiliaryKinds: auxiliary?.kinds ?? [])
        let recorder = c.recorder.enabled ? RecorderFactory.make(c, store: RecorderFactory.store(c), source: source,
            rateHz: { c.streams.accelerometer.effectiveRate(sourceRate: c.source.rate) }) : nil
        extraOutputs = (homeAssistant?.outputs ?? []) + (recorder.map { [$0] } ?? [])
        self.recorder = recorder
        recordingCatalog = recorder.map { r in RecordingCatalog(store: r.store, activeFile: { [weak r] in r?.currentFile }) }

        // Connect first, so a recording replayed as fast as possible loses nothing to the
        // connection handshake; a live source starts after at most 5 s either way.
        install(newClient)
        let connected: Bool
        switch waitForBroker(newClient, timeout: 5) {
        case .connected: connected = true
        case .timedOut: connected = false
        case .stopRequested(let signo):
            // Nothing was sampled yet: no pipeline to drain, only the client and the outbox.
            let reason = signo == SIGINT ? "SIGINT" : "SIGTERM"
            log.notice("stopping", ["reason": reason, "during": "the initial broker wait"])
            notifier.notify("STOPPING=1\nSTATUS=stopping: " + reason)
            outbox.stop(timeout: .milliseconds(200))
            client.disconnect(timeout: .milliseconds(500))
            log.notice("stopped", ["samples": "0", "reason": reason])
            return 0
        }
        if !connected {
            // The client logged each failed attempt; say here what it means for the start-up.
            if let why = newClient.lastFailure, why.isBrokerRefusal {
                log.error("the broker refuses the connection; sampling starts anyway and the client keeps retrying",
                          ["broker": newClient.options.address.description, "reason": why.kind.advice])
            } else {
                log.warning("broker not reachable yet; sampling starts anyway, stream batches wait in the bounded outbox and events in the spool",
                            ["broker": newClient.options.address.description])
            }
        }

        startDashboard(c)
        do {
            try startPipeline(source: source, configuration: c)
        } catch {
            log.error("cannot start the source", ["source": source.capabilities.name, "error": "\(error)"])
            outbox.stop(timeout: .milliseconds(200))
            _ = try? client.publish(topic: topics.status, string: "offline", qos: 1, retain: true)
            client.disconnect(timeout: .milliseconds(1500))
            return 1
        }
        if c.debug.syntheticEventsPerMinute > 0 {
            synthetic = SyntheticEventSource(topic: topics.prefix + "/events/synthetic", perMinute: c.debug.syntheticEventsPerMinute)
            log.notice("debug: synthetic events enabled (test aid)", ["per_minute": "\(c.debug.syntheticEventsPerMinute)", "run": synthetic!.run])
        }

        let exitReason = mainLoop(duration: duration)
        return stop(reason: exitReason)
    }

    /// How the initial wait for the broker ended.
    private enum BrokerWait { case connected, timedOut, stopRequested(Int32) }

    /// Waits up to `timeout` seconds for the first connection while taking signals every 50 ms,
    /// so SIGTERM/SIGINT end the wait at once; a SIGHUP meanwhile is applied once sampling runs.
    private func waitForBroker(_ client: MQTTClient, timeout: Double) -> BrokerWait {
        let deadline = MonotonicClock.nowNanos() + UInt64(timeout * 1e9)
        while true {
            if client.isConnected { return .connected }
            let now = MonotonicClock.nowNanos()
            if now >= deadline { return .timedOut }
            switch SignalWaiter.wait(timeout: min(0.05, Double(deadline - now) * 1e-9)) {
            case .terminate(let signo): return .stopRequested(signo)
            case .reload: reloadPending = true
            case let other?: handleSignal(other)
            case nil: break
            }
        }
    }

    /// Where query answers may go, for the running configuration and topic prefix.
    private var replyTopicPolicy: ReplyTopicPolicy {
        ReplyTopicPolicy(prefix: topics.prefix, template: configuration.mqtt.topicPrefix,
                         allowedPrefix: configuration.control.replyTopicPrefix)
    }
    /// Refused requests and reply topics, logged bounded (shared by every responder).
    private let requestLog = RequestLog()

    /// A SIGHUP received before the main loop ran (applied by its first turn).
    private var reloadPending = false
    /// Ignored signals already logged (each is logged once).
    private var loggedSignals: Set<Int32> = []

    /// SIGUSR1 (statistics now) and the signals taken only so they cannot end the process.
    private func handleSignal(_ received: SignalWaiter.Received) {
        switch received {
        case .statistics:
            // Before the pipeline exists (the initial broker wait) there is nothing to count yet.
            log.notice("statistics requested (SIGUSR1)", ["status": pipeline == nil ? "starting: waiting for the broker" : statusLine()])
            statisticsRequested = true
        case .ignored(let signo):
            if loggedSignals.insert(signo).inserted {
                log.notice("signal ignored", ["signal": SignalWaiter.name(signo), "note": "logged once; SIGTERM stops, SIGHUP reloads, SIGUSR1 reports statistics"])
            }
        case .terminate, .reload: break
        }
    }

    /// SIGUSR1 asked for `stats` and `health` now.
    private var statisticsRequested = false

    private func mainLoop(duration: Double?) -> String {
        let start = MonotonicClock.nowNanos()
        var nextStats = start + statsIntervalNanos
        var nextLatest = start + 1_000_000_000
        var ready = false
        var lastWatchdogSample: UInt64 = 0
        var lastWatchdogRetries: UInt64 = 0
        var nextWatchdog = start
        var disconnectedSince: UInt64?
        var nextDashboard = start
        while true {
            if reloadPending {
                reloadPending = false
                reload()
                nextStats = 0
            }
            switch SignalWaiter.wait(timeout: 0.1) {
            case .terminate(let signo):
                return signo == SIGINT ? "SIGINT" : "SIGTERM"
            case .reload:
                reload()
                nextStats = 0
            case let other?:
                handleSignal(other)
                if statisticsRequested {
                    statisticsRequested = false
                    nextStats = 0
                }
            case nil:
                break
            }
            let now = MonotonicClock.nowNanos()
            if let d = duration, Double(now - start) * 1e-9 >= d { return "duration reached" }
            if publisher.ended == .endOfStream { return Self.endOfRecording }

            handleCommands()
            if let r = mountControl?.poll(configuration: configuration, now: now) { publishMountReply(r) }
            finishGyroCalibrationIfDue(now: now)
            synthetic?.emitDue(now: now, into: outbox)
            auxiliary?.tick(now: now, into: outbox)
            failOverIfDue(now: now, disconnectedSince: &disconnectedSince)

            let stats = continuity.totals(pipeline.statistics)
            if !ready, stats.samplesProcessed > 0, client.isConnected {
                ready = true
                notifier.notify("READY=1\nSTATUS=" + statusLine())
                log.info("ready: sampling and connected")
            }
            // Watchdog only while samples flow or a failed source is being re-opened (the retry loop
            // is progress too): a stuck pipeline gets restarted by systemd.
            if let interval = notifier.watchdogIntervalNanos, now >= nextWatchdog {
                nextWatchdog = now + interval / 3
                if (stats.lastSampleNanos != lastWatchdogSample && stats.samplesProcessed > 0) || stats.sourceRetries != lastWatchdogRetries {
                    lastWatchdogSample = stats.lastSampleNanos
                    lastWatchdogRetries = stats.sourceRetries
                    notifier.notify("WATCHDOG=1")
                }
            }
            let latestInterval = configuration.streams.latestInterval
            if latestInterval > 0, now >= nextLatest {
                nextLatest = now + UInt64(latestInterval * 1e9)
                latestSnapshots.withLock { $0 }?.publish(into: outbox)
            }
            announceSourceTransitions(stats: stats)
            if dashboard != nil, now >= nextDashboard {
                nextDashboard = now + 250_000_000
                updateDashboard(stats)
            }
            if now >= nextStats { announceClockStep() }
            if now >= nextStats {
                // Writes a full disk refused are retried here; `health` follows every change.
                activity?.store.retryPending()
                if storageProblems() != storageProblemsSeen { healthDirty.store(true, ordering: .relaxed) }
                if activityInputCode() != activityInputSeen { healthDirty.store(true, ordering: .relaxed) }
            }
            if now >= nextStats || healthDirty.exchange(false, ordering: .relaxed) {
                if now >= nextStats {
                    nextStats = now + statsIntervalNanos
                    outbox.enqueueState(topic: topics.stats, payload: statsPayload(), qos: 0, retain: false)
                    notifier.notify("STATUS=" + statusLine())
                }
                publishHealth()
            }
        }
    }

    private static let endOfRecording = "end of recording"
    /// How long the end of a replay may wait for the outbox to empty before the normal stop.
    private static let endOfRecordingDrainLimit = Duration.seconds(120)

    private var statsIntervalNanos: UInt64 { UInt64(configuration.process.statsIntervalSeconds * 1e9) }

    /// Graceful stop, bounded by `process.stop_timeout_s`: stop sampling (partial batches flushed),
    /// deliver what the outbox holds, keep unacknowledged events in the spool, announce `offline`,
    /// disconnect.
    ///
    /// At the end of a replayed recording nobody asked to stop, and a replay is lossless: the outbox
    /// is first drained without the stop deadline (bounded by `endOfRecordingDrainLimit` instead), so
    /// a loaded machine or a slow broker cannot cut the recording's tail off.
    private func stop(reason: String) -> Int32 {
        if reason == Self.endOfRecording {
            activity?.stop()
            motionEvents?.stop()
            service.stop()
            if !outbox.drain(timeout: Self.endOfRecordingDrainLimit) {
                log.warning("end of recording: the outbox did not empty in time", ["limit_s": "\(Self.endOfRecordingDrainLimit.components.seconds)"])
            }
        }
        let budget = configuration.process.stopTimeoutSeconds
        let t0 = MonotonicClock.nowNanos()
        func remaining(_ fraction: Double) -> Duration {
            let left = budget * fraction - Double(MonotonicClock.nowNanos() - t0) / 1e9
            return .milliseconds(Int64(max(0.05, left) * 1000))
        }
        log.notice("stopping", ["reason": reason, "deadline_s": "\(budget)"])
        notifier.notify("STOPPING=1\nSTATUS=stopping: " + reason)
        dashboard?.stop()
        activity?.stop()
        motionEvents?.stop()
        movementAdvisor?.stop()
        latestSnapshots.withLock { $0?.stop(); $0 = nil }
        service.stop()
        if !outbox.drain(timeout: remaining(0.6)) {
            let o = outbox.statistics
            log.warning("stop deadline: not everything was delivered",
                        ["unacknowledged_events_kept_in_spool": "\(o.unacknowledgedEvents)", "queued_stream_messages": "\(o.queuedStreamMessages)"])
        }
        outbox.stop(timeout: remaining(0.7))
        // Final counters, then offline: directly (QoS 1), so `disconnect` waits for their PUBACKs.
        _ = try? client.publish(topic: topics.stats, payload: statsPayload(), qos: 1, retain: false)
        publishHealth(direct: true)
        _ = try? client.publish(topic: topics.status, string: "offline", qos: 1, retain: true)
        client.disconnect(timeout: remaining(1.0))
        let s = continuity.totals(pipeline.statistics)
        let o = outbox.statistics
        log.notice("stopped", ["samples": "\(s.samplesProcessed)", "ring_drops": "\(s.ringDrops)",
                               "produced": "\(o.produced)", "acknowledged": "\(o.acknowledged)",
                               "dropped": "\(o.dropped.values.reduce(0, +))", "refused_by_broker": "\(client.refusals.total)",
                               "events_kept_in_spool": "\(o.unacknowledgedEvents)",
                               "delivery": Self.deliveryNote(client.options.protocolVersion),
                               "took_ms": "\((MonotonicClock.nowNanos() - t0) / 1_000_000)"])
        return 0
    }

    /// What `acknowledged` in the stop summary can and cannot prove (docs/reliability.md).
    static func deliveryNote(_ version: MQTTProtocolVersion) -> String {
        version == .v5
            ? "QoS 0 delivery is unknowable (no acknowledgement; an ACL refusal of it is silent); QoS 1 refusals are counted in refused_by_broker"
            : "MQTT 3.1.1: QoS 0 delivery is unknowable and a broker acknowledges QoS 1 publishes its ACL drops, so acknowledged is not proof of delivery; use protocol 5 to see refusals"
    }

    // MARK: Parts

    /// The outbox, with its spool in `state_directory` (created with its missing parents) when
    /// `spool.enabled`. A spool that cannot be opened fails start-up (nil, logged): never a
    /// silent downgrade to events kept in memory only.
    private func makeOutbox(_ c: AgentConfiguration) -> Outbox? {
        var settings = OutboxSettings(maximumStreamBytes: c.outbox.maxBytes,
                                      maximumStreamAgeMilliseconds: Int(c.outbox.maxAgeSeconds * 1000),
                                      inflightWindow: c.outbox.inflight,
                                      spoolFsync: Self.fsyncPolicy(c.spool), maximumSpoolBytes: c.spool.maxBytes)
        if c.spool.enabled {
            settings.spoolPath = SpoolConfiguration.path(stateDirectory: c.stateDirectory)
            do {
                return try Outbox(settings: settings)
            } catch {
                log.error("cannot open the event spool; not starting",
                          ["error": error.description,
                           "hint": "make state_directory (\(c.stateDirectory)) creatable and writable, or set spool.enabled: false to keep events in memory only"])
                return nil
            }
        }
        // Without a spool, `init` cannot fail.
        return try! Outbox(settings: settings)
    }

    static func fsyncPolicy(_ s: SpoolConfiguration) -> SpoolFsyncPolicy {
        switch s.fsync {
        case "always": .always
        case "never": .never
        default: .interval(milliseconds: s.fsyncIntervalMilliseconds)
        }
    }

    private func routes(_ c: AgentConfiguration, _ t: TopicLayout) -> [MQTTPublisher.StreamRoute] {
        let id = c.device.resolvedID()
        let route = { (s: StreamSettings, topic: String) in
            MQTTPublisher.StreamRoute(topic: topic, qos: s.qos, retain: s.retain, format: s.format, deviceID: id)
        }
        var motion = route(c.streams.motion, t.motion)
        motion.outputFrame = c.fusion.outputFrame
        return [route(c.streams.accelerometer, t.sensor("accelerometer")), route(c.streams.gyroscope, t.sensor("gyroscope")),
                route(c.streams.magnetometer, t.sensor("magnetometer")), motion]
    }

    private func makeClient(_ c: AgentConfiguration, topics: TopicLayout, brokerIndex: Int = 0) throws -> MQTTClient {
        let urls = Self.brokerURLs(c)
        let options = try c.connectionOptions(brokerURL: urls[min(brokerIndex, urls.count - 1)], statusTopic: topics.status)
        return try MQTTClient(options: options)
    }

    /// `mqtt.broker` followed by `mqtt.fallback_brokers`.
    static func brokerURLs(_ c: AgentConfiguration) -> [String] {
        (c.mqtt.broker.map { [$0] } ?? []) + c.mqtt.fallbackBrokers
    }

    /// Failover: when the current broker has been unreachable for `mqtt.failover_after_s` and other
    /// brokers are configured, the next one (in order, wrapping) gets a new client. The agent stays
    /// on a broker that works (sticky); the outbox re-sends what was in flight.
    private func failOverIfDue(now: UInt64, disconnectedSince: inout UInt64?) {
        if client.isConnected { disconnectedSince = nil; return }
        guard let since = disconnectedSince else { disconnectedSince = now; return }
        let urls = Self.brokerURLs(configuration)
        guard urls.count > 1, Double(now - since) / 1e9 >= configuration.mqtt.failoverAfterSeconds else { return }
        let next = (brokerIndex + 1) % urls.count
        disconnectedSince = now
        let replacement: MQTTClient
        do { replacement = try makeClient(configuration, topics: topics, brokerIndex: next) } catch {
            log.error("cannot create a client for the next broker; skipping it", ["broker": urls[next], "error": "\(error)"])
            brokerIndex = next
            return
        }
        log.warning("broker unreachable; failing over to the next one",
                    ["from": urls[brokerIndex], "to": urls[next], "after_s": "\(configuration.mqtt.failoverAfterSeconds)"])
        recordError("mqtt: \(urls[brokerIndex]) unreachable for \(configuration.mqtt.failoverAfterSeconds) s; failed over to \(urls[next])")
        let old: MQTTClient = client
        old.disconnect(timeout: .milliseconds(300))
        reconnectsBase += old.statistics.reconnects
        failovers += 1
        brokerIndex = next
        install(replacement)
    }

    /// Wires a new client to the outbox and starts it. `status`, `meta` (retained) are (re)announced
    /// on every connection: a broker restart without persistence forgets them.
    private func install(_ newClient: MQTTClient) {
        let statusTopic = topics.status, metaTopic = topics.meta
        let commandPattern = topics.prefix + "/cmd/+"
        let connectionLog = Logger(label: "mqtt")
        newClient.onConnectionChange = { [weak self, weak newClient] state in
            guard let self, let newClient else { return }
            switch state {
            case .connected:
                _ = try? newClient.publish(topic: statusTopic, string: "online", qos: 1, retain: true)
                if let m = meta.withLock({ $0 }) { _ = try? newClient.publish(topic: metaTopic, payload: m, qos: 1, retain: true) }
                healthDirty.store(true, ordering: .relaxed)
                homeAssistant?.announce()
            case .connectionFailed(let e, _), .connectionLost(let e, _):
                // The client itself logs each failure once; here it only becomes `health`'s last error.
                recordError("mqtt: " + e.description)
            case .connecting, .stopped:
                connectionLog.debug("\(state)")
            }
            outbox.connectionChanged(state, client: newClient)
        }
        // One router for every subscription: Home Assistant's birth, history queries, then commands.
        attachHistoryQueries(to: newClient, subscribe: true)
        do { try newClient.subscribe(topics.prefix + "/query/latest", qos: 1) } catch {
            log.error("cannot subscribe to query/latest", ["error": "\(error)"])
        }
        // Taken now (main thread): the closure runs on the MQTT network thread.
        let policy = replyTopicPolicy, requestLog = requestLog
        newClient.onMessage = { [weak self, weak newClient] m in
            if self?.homeAssistant?.handle(m) == true { return }
            if self?.historyResponder.withLock({ $0 })?.handle(m) == true { return }
            if let latest = self?.latestSnapshots.withLock({ $0 }), let c = newClient,
               latest.handle(m, client: c, policy: policy, requestLog: requestLog) { return }
            self?.commands.withLock { q in if q.count < 64 { q.append(m) } }
        }
        if configuration.control.enabled {
            do { try newClient.subscribe(commandPattern, qos: 1) } catch {
                log.error("cannot subscribe to commands", ["pattern": commandPattern, "error": "\(error)"])
            }
        }
        homeAssistant?.attach(newClient)
        outbox.attach(newClient)
        client = newClient
        do {
            try newClient.start()
        } catch {
            log.error("cannot start the MQTT client", ["error": "\(error)"])
            recordError("mqtt: \(error)")
        }
    }

    /// Starts the service's pipeline with the publisher (and Home Assistant's outputs) as static outputs.
    private func startPipeline(source: any IMUSource, configuration c: AgentConfiguration) throws {
        var pc = PipelineConfiguration(c)
        pc.sequenceOffset = continuity.nextSequence
        (pc.calibration, calibrationState) = FusionSetup.calibration(c, sensor: deviceID, log: log)
        do throws(MountFileError) { pc.mount = try MountSetup.resolve(c) } catch {
            throw ApplyFailure(description: "source.mount: \(error)")
        }
        let svc = MotionService(source: source, configuration: pc, outputs: [publisher] + extraOutputs)
        publisher.reset(lossless: false)
        // Held until every consumer is attached: a lossless (as-fast-as-possible) source would
        // otherwise run ahead of activity detection and the advisors.
        let r = try svc.start(holdingDelivery: true)
        guard let p = svc.pipeline else { throw ApplyFailure(description: "the pipeline stopped right after starting") }
        service = svc
        startActivity(c, report: r)
        startMotionEvents(c, report: r)
        if client != nil { attachHistoryQueries(to: client, subscribe: false) }
        latestSnapshots.withLock { $0 = LatestSnapshots(service: svc, prefix: topics.prefix) }
        movementAdvisor = MovementAdvisor(service: svc, frame: c.fusion.referenceFrame, outbox: outbox, prefix: topics.prefix)
        movementAdvisor?.start()
        publisher.reset(lossless: r.sourceConfiguration.lossless)
        dashboard?.attach(service: svc, activity: activity != nil, configuration: c)
        svc.beginDelivery()
        pipeline = p
        if let m = mountControl { m.pipelineStarted(with: pc.mount) } else { mountControl = MountControl(current: pc.mount) }
        if !pc.mount.isIdentity { log.notice("mount applied", ["accel_gyro": "\(pc.mount.inertial.matrix)", "magnetometer": "\(pc.mount.magnetometer.matrix)"]) }
        report = r
        announce(c)
        log.notice("running", ["device_id": deviceID, "source": r.source.name,
                               "rate_hz": "\(r.sourceConfiguration.rate)", "prefix": topics.prefix])
    }

    /// Logs capped rates and (re)publishes the retained `meta`.
    private func announce(_ c: AgentConfiguration) {
        guard let r = report else { return }
        logEffectiveRates(r, c)
        let m = MetaPayload.encode(deviceID: deviceID, report: r, configuration: c,
                                   availableFrames: availableFrames(r.source.sensors, c), calibration: calibrationState)
        meta.withLock { $0 = m }
        if client.isConnected { _ = try? client.publish(topic: topics.meta, payload: m, qos: 1, retain: true) }
    }

    /// Starts the motion-event detectors when configured and the source has an accelerometer.
    private func startMotionEvents(_ c: AgentConfiguration, report r: PipelineStartReport) {
        guard c.events.enabled, r.source.sensors.contains(.accelerometer) else { return }
        let e = MotionEventPublisher(service: service, settings: c.events, stateDirectory: c.stateDirectory,
                                     outbox: outbox, prefix: topics.prefix)
        do {
            try e.start()
            motionEvents = e
        } catch {
            log.error("motion events are off", ["error": "\(error)"])
            recordError("events: \(error)")
        }
    }

    /// Starts activity detection and step counting on the service (the library's managers) when
    /// configured and the source has an accelerometer; history failures are reported, not fatal.
    private func startActivity(_ c: AgentConfiguration, report r: PipelineStartReport) {
        guard c.activity.enabled, r.source.sensors.contains(.accelerometer) else { return }
        do {
            let a = try ActivityPublisher(service: service, settings: c.activity, stateDirectory: c.stateDirectory,
                                          outbox: outbox, prefix: topics.prefix)
            a.start()
            activity = a
        } catch {
            log.error("activity detection is off: the history store cannot be opened", ["state_directory": c.stateDirectory, "error": "\(error)"])
            recordError("activity: \(error)")
        }
    }

    /// (Re)builds the query responder over what runs now: the activity history (if activity runs)
    /// and the recordings (if the recorder is on); a query for what is off gets an error reply
    /// saying so. `subscribe` once per client (the client renews subscriptions on reconnection).
    private func attachHistoryQueries(to client: MQTTClient, subscribe: Bool) {
        var source = recordingCatalog.map(HistoryQueryResponder.Source.recordings) ?? HistoryQueryResponder.Source()
        if let a = activity { source = .store(a.store, recordings: recordingCatalog) }
        let responder = HistoryQueryResponder(client: client, prefix: topics.prefix, source: source,
                                              policy: replyTopicPolicy, requestLog: requestLog)
        do {
            if subscribe { try responder.subscribe() }
            historyResponder.withLock { $0 = responder }
        } catch {
            log.error("cannot subscribe to history queries", ["error": "\(error)"])
        }
    }

    /// Source failures and recoveries: once each on `events/status` (spooled), the failure also as
    /// `health`'s `last_error`; `health` is republished (retained) on every change.
    private func announceSourceTransitions(stats: PipelineStatistics) {
        let transitions = publisher.takeSourceTransitions()
        guard !transitions.isEmpty else { return }
        let name = report?.source.name ?? "source"
        for t in transitions {
            var down: Double?
            if let error = t.error {
                sourceFailedAt = MonotonicClock.nowNanos()
                retriesAtFailure = stats.sourceRetries
                recordError("source \(name): \(error)")
            } else if let since = sourceFailedAt {
                down = Double(MonotonicClock.nowNanos() - since) / 1e9
                sourceFailedAt = nil
            }
            let payload = t.payload(source: name, retryMaxSeconds: configuration.source.retryMaxSeconds, downSeconds: down,
                                    attempts: stats.sourceRetries &- retriesAtFailure)
            outbox.enqueueEvent(topic: topics.prefix + "/events/status", payload: payload)
        }
        healthDirty.store(true, ordering: .relaxed)
    }

    /// A step of the realtime clock (NTP's first sync, `date -s`), checked each stats tick: UTC
    /// is mapped anew from then on (never reordering samples) and the step announced once on
    /// `events/status` as `clockStepped` (docs/topics.md).
    private func announceClockStep() {
        guard let step = publisher.remapClockIfStepped() else { return }
        let seconds = Double(step.nanos) / 1e9
        log.warning("the wall clock stepped; UTC in payloads is mapped anew from now on", ["step_s": "\(seconds)"])
        outbox.enqueueEvent(topic: topics.prefix + "/events/status", payload: ClockStepEvent.payload(step: step))
    }

    private func recordError(_ text: String) {
        lastError.withLock { $0 = (text, MonotonicClock.realtimeNanos()) }
        healthDirty.store(true, ordering: .relaxed)
    }

    // MARK: Reload (SIGHUP)

    /// Re-reads the configuration file. An invalid file is rejected (every problem logged) and the
    /// running configuration stays. A valid one is applied without restarting the process: a new
    /// MQTT client when the broker connection or topics changed, a pipeline restart (a gap of a few
    /// samples; `seq` continues) when the source, streams or fusion changed.
    func reload() {
        notifier.notify("RELOADING=1\nSTATUS=reloading configuration")
        defer { notifier.notify("READY=1\nSTATUS=" + statusLine()) }
        guard let path = configPath else {
            log.notice("SIGHUP: no --config file was given; nothing to reload")
            return
        }
        let fresh: AgentConfiguration
        do {
            fresh = try ConfigurationCheck.load(path: path, overrides: overrides)
        } catch {
            for d in error.diagnostics { log.error("reload rejected: invalid configuration", ["problem": "\(d)"]) }
            log.error("reload rejected; the running configuration stays", ["file": path, "problems": "\(error.diagnostics.count)"])
            let first = error.diagnostics.first.map { "\($0)" } ?? "invalid configuration"
            rejectReload(first + (error.diagnostics.count > 1 ? " (+\(error.diagnostics.count - 1) more)" : ""))
            return
        }
        switch apply(fresh) {
        case .success(let summary):
            log.notice("configuration reloaded", ["file": path, "changed": summary])
            rejectedReload.withLock { $0 = nil }
            healthDirty.store(true, ordering: .relaxed)
        case .failure(let e):
            log.error("reload rejected; the running configuration stays", ["file": path, "error": e.description])
            rejectReload(path + ": " + e.description)
        }
    }

    /// The last rejected reload, shown in `health` (`reload_rejected`) until a reload succeeds.
    private let rejectedReload = Mutex<(text: String, nanos: UInt64)?>(nil)

    private func rejectReload(_ text: String) {
        rejectedReload.withLock { $0 = (String(text.prefix(500)), MonotonicClock.realtimeNanos()) }
        healthDirty.store(true, ordering: .relaxed)
    }

    struct ApplyFailure: Error, CustomStringConvertible { var description: String }

    /// Applies a new, already validated configuration. Everything that can fail is built before
    /// anything running is touched.
    /// `restartPipeline` restarts the pipeline even when nothing changed (a new calibration file).
    func apply(_ new: AgentConfiguration, restartPipeline: Bool = false) -> Result<String, ApplyFailure> {
        let old = configuration
        if new == old && !restartPipeline { return .success("nothing") }
        guard new.mqtt.broker != nil else { return .failure(ApplyFailure(description: "mqtt.broker: no broker configured")) }
        var changed: [String] = []
        let newID = new.device.resolvedID()
        let newTopics: TopicLayout
        do { newTopics = try TopicLayout(prefix: new.mqtt.resolvedTopicPrefix(deviceID: newID)) } catch {
            return .failure(ApplyFailure(description: "mqtt.topic_prefix: \(error)"))
        }
        let connectionChanged = new.mqtt != old.mqtt || newID != deviceID || new.control != old.control
        // The publisher is a static output of the service's pipeline: any stream change restarts it.
        let routesChanged = routes(new, newTopics) != routes(old, topics)
        let pipelineChanged = new.source != old.source || new.fusion != old.fusion || new.streams != old.streams
            || routesChanged || new.activity != old.activity || new.homeAssistant != old.homeAssistant
            || new.events != old.events || restartPipeline
        // Only rates (rate, publish_rate, enabled): new schedules for the running pipeline.
        let reschedule = pipelineChanged && !restartPipeline && ReloadPlan.onlySchedulesChanged(new, old, routesChanged: routesChanged)
        var replacement: MQTTClient?
        if connectionChanged {
            do { replacement = try makeClient(new, topics: newTopics) } catch {
                return .failure(ApplyFailure(description: "mqtt: \(error)"))
            }
        }
        // `auxiliary:` devices are reopened (seq and the altitude reference continue); the IMU
        // source is untouched. A device that cannot be opened rejects the whole reload.
        let auxiliaryChanged = new.auxiliary != old.auxiliary || (auxiliary != nil && newTopics != topics)
        var newAuxiliary: AuxiliaryStreams?
        if auxiliaryChanged {
            do { newAuxiliary = try AuxiliaryStreams.make(new, topics: newTopics, log: log) } catch {
                return .failure(ApplyFailure(description: "auxiliary: \(error)"))
            }
        }
        var newSource: (any IMUSource)?
        if pipelineChanged && !reschedule {
            do { newSource = try makeSource(new) } catch {
                return .failure(ApplyFailure(description: "source: \(error)"))
            }
        }
        if new.logging != old.logging { Logger.threshold = new.logging.level; changed.append("logging") }
        for warning in SecretFileCheck.warnings(for: new) { log.warning("secret readable by other users", ["problem": warning]) }
        if new.outbox != old.outbox || new.spool != old.spool || new.stateDirectory != old.stateDirectory || new.process != old.process {
            log.notice("outbox, spool, state_directory and process settings take effect at the next start")
        }
        if new.debug != old.debug {
            synthetic = new.debug.syntheticEventsPerMinute > 0
                ? SyntheticEventSource(topic: newTopics.prefix + "/events/synthetic", perMinute: new.debug.syntheticEventsPerMinute) : nil
            changed.append("debug")
        }
        configuration = new

        if let replacement {
            // The old broker learns we left (retained offline), then the new client takes over;
            // the outbox re-sends what was in flight on the old one.
            let oldClient: MQTTClient = client
            _ = try? oldClient.publish(topic: topics.status, string: "offline", qos: 1, retain: true)
            oldClient.disconnect(timeout: .seconds(1))
            reconnectsBase += oldClient.statistics.reconnects
            deviceID = newID
            topics = newTopics
            brokerIndex = 0
            install(replacement)
            changed.append("mqtt")
        }
        if auxiliaryChanged {
            if let newAuxiliary, let previous = auxiliary { newAuxiliary.continuing(from: previous) }
            auxiliary = newAuxiliary
            changed.append("auxiliary (devices reopened)")
        }
        if reschedule, let r = pipeline.reschedule(accelerometer: StreamSchedule(new.streams.accelerometer),
                                                   gyroscope: StreamSchedule(new.streams.gyroscope),
                                                   magnetometer: StreamSchedule(new.streams.magnetometer),
                                                   motion: StreamSchedule(new.streams.motion)) {
            report = r
            announce(new)
            changed.append("stream rates (source kept)")
        }
        if let newSource {
            // Source, fusion, topics or QoS changed: restart the pipeline. A short gap in the
            // streams; `seq` continues because the publisher is kept, `first_sample` and the
            // counters because `continuity` carries them.
            activity?.stop()
            activity = nil
            motionEvents?.stop()
            motionEvents = nil
            movementAdvisor?.stop()
            movementAdvisor = nil
            latestSnapshots.withLock { $0?.stop(); $0 = nil }
            service.stop()
            continuity.retire(pipeline)
            deviceID = newID
            topics = newTopics
            publisher.setRoutes(routes(new, newTopics))
            do {
                try startPipeline(source: newSource, configuration: new)
            } catch {
                log.error("the new source does not start; restarting the previous one", ["error": "\(error)"])
                configuration.source = old.source
                configuration.streams = old.streams
                configuration.fusion = old.fusion
                if let back = try? makeSource(old) {
                    try? startPipeline(source: back, configuration: configuration)
                }
                return .failure(ApplyFailure(description: "source: \(error)"))
            }
            changed.append("pipeline (restarted)")
        }
        healthDirty.store(true, ordering: .relaxed)
        return .success(changed.isEmpty ? "nothing running" : changed.joined(separator: ", "))
    }

    // MARK: Commands (control.enabled)

    private func handleCommands() {
        let pending = commands.withLock { q -> [MQTTMessage] in defer { q.removeAll() }; return q }
        guard !pending.isEmpty else { return }
        let prefix = topics.prefix + "/cmd/"
        for m in pending {
            guard configuration.control.enabled, m.topic.hasPrefix(prefix) else { continue }
            let name = String(m.topic.dropFirst(prefix.count))
            let replyTopic = prefix + name + "/result"
            var w = JSONWriter(capacity: 512)
            w.beginObject()
            switch name {
            case "stream":
                switch StreamCommand.parse(m.payload) {
                case .failure(let f):
                    reply(&w, id: f.id, ok: false, error: f.message)
                case .success(let cmd):
                    let current = configuration.streams[named: cmd.stream]!
                    let sourceRate = report?.sourceConfiguration.rate ?? configuration.source.rate
                    switch cmd.applied(to: current, sourceRate: sourceRate) {
                    case .failure(let f):
                        reply(&w, id: f.id, ok: false, error: f.message)
                    case .success(let settings):
                        var next = configuration
                        next.streams[named: cmd.stream] = settings
                        switch apply(next) {
                        case .success(let summary):
                            reply(&w, id: cmd.id, ok: true, error: nil)
                            w.field("stream", cmd.stream)
                            w.field("enabled", settings.enabled)
                            w.field("rate", settings.rate, fractionDigits: 3)
                            w.field("publish_rate", settings.publishRate, fractionDigits: 3)
                            log.notice("command applied", ["stream": cmd.stream, "enabled": "\(settings.enabled)",
                                                           "rate_hz": "\(settings.rate)", "publish_rate_hz": "\(settings.publishRate)",
                                                           "changed": summary])
                        case .failure(let e):
                            reply(&w, id: cmd.id, ok: false, error: e.description)
                        }
                    }
                }
            case "events":
                let (id, action) = MotionEventCommand.parse(m.payload)
                if let motionEvents, let action, let problem = motionEvents.perform(action) {
                    reply(&w, id: id, ok: false, error: problem)
                } else if motionEvents == nil {
                    reply(&w, id: id, ok: false, error: "motion events are off (events.enabled: false)")
                } else if action == nil {
                    reply(&w, id: id, ok: false, error: "expected {\"action\": \"set_level\" | \"arm_tamper\" | \"disarm_tamper\"}")
                } else {
                    reply(&w, id: id, ok: true, error: nil)
                    w.field("action", action!)
                }
            case "mount":
                switch MountCommand.parse(m.payload) {
                case .failure(let f):
                    reply(&w, id: f.id, ok: false, error: f.message)
                case .success(let cmd):
                    guard let r = mountControl?.handle(cmd, configuration: configuration, pipeline: pipeline,
                                                       sourceRate: report?.sourceConfiguration.rate ?? configuration.source.rate,
                                                       hasAccelerometer: report?.source.sensors.contains(.accelerometer) ?? false,
                                                       now: MonotonicClock.nowNanos()) else { continue }   // answered by poll
                    reply(&w, id: r.id, ok: r.error == nil, error: r.error)
                    r.writeFields(into: &w)
                }
            case "calibrate":
                switch CalibrationCommand.parse(m.payload) {
                case .failure(let f):
                    reply(&w, id: f.id, ok: false, error: f.message)
                case .success(let cmd):
                    if let problem = startGyroCalibration(cmd) {
                        reply(&w, id: cmd.id, ok: false, error: problem)
                    } else {
                        // The result follows on the same topic when the run ends.
                        reply(&w, id: cmd.id, ok: true, error: nil)
                        w.field("action", cmd.action)
                        w.field("state", "started")
                        w.field("duration_s", cmd.duration, fractionDigits: 1)
                    }
                }
            default:
                reply(&w, id: nil, ok: false, error: "unknown command '\(name)'; available: stream, events, mount, calibrate")
            }
            w.endObject()
            if TopicLayout.isValidPublishTopic(replyTopic) {
                _ = try? client.publish(topic: replyTopic, payload: w.buffer, qos: 1, retain: false)
            }
        }
    }

    /// The answer to a `cmd/mount` learning that took samples (on `cmd/mount/result`).
    private func publishMountReply(_ r: MountControl.Reply) {
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        reply(&w, id: r.id, ok: r.error == nil, error: r.error)
        r.writeFields(into: &w)
        w.endObject()
        _ = try? client.publish(topic: topics.prefix + "/cmd/mount/result", payload: w.buffer, qos: 1, retain: false)
    }

    /// Starts a gyro calibration on the running service; the reason when it cannot.
    private func startGyroCalibration(_ cmd: CalibrationCommand) -> String? {
        guard gyroCalibration == nil else { return "a gyro calibration is already running" }
        guard let r = report, r.source.sensors.contains(.gyroscope) else { return "the source has no gyroscope" }
        let run = GyroCalibrationRun(command: cmd, sourceRate: r.sourceConfiguration.rate)
        do {
            let id = try service.addConsumer(run, schedule: GyroCalibrationRun.schedule)
            gyroCalibration = (run, service, id, MonotonicClock.nowNanos())
            log.notice("gyro calibration started; keep the device still", ["duration_s": "\(cmd.duration)"])
            return nil
        } catch {
            return "cannot read the gyroscope: \(error)"
        }
    }

    /// Ends a gyro calibration that has its samples (or ran out of time: the pipeline was
    /// restarted or the source stalled): keeps the bias in the calibration file, restarts the
    /// pipeline so fusion uses it, and answers on `cmd/calibrate/result`.
    private func finishGyroCalibrationIfDue(now: UInt64) {
        guard let g = gyroCalibration else { return }
        // (`now` was taken before this loop's commands, so it can be older than the start.)
        let timedOut = now > g.startNanos && Double(now - g.startNanos) * 1e-9 > g.run.command.duration * 2 + 5
        guard g.run.isComplete || timedOut else { return }
        gyroCalibration = nil
        g.service.removeConsumer(g.consumer)
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        let starved = !g.run.isComplete
        let outcome: Result<GyroscopeCalibrator.Result, GyroscopeCalibrator.Failure> = starved ? .failure(.tooFewSamples(0)) : g.run.result()
        switch outcome {
        case .failure(let f):
            reply(&w, id: g.run.command.id, ok: false, error: starved ? "too few samples arrived (the source stalled or was restarted)" : f.description)
        case .success(let fit):
            let path = FusionSetup.calibrationPath(configuration)
            do throws(FileError) {
                try GyroCalibrationRun.keep(bias: fit.bias, path: path, sensor: FusionSetup.calibrationSensor(configuration))
                reply(&w, id: g.run.command.id, ok: true, error: nil)
                w.field("action", g.run.command.action)
                w.field("state", "done")
                w.key("bias_dps")
                w.beginArray()
                for v in [fit.bias.x, fit.bias.y, fit.bias.z] { w.value(v * 180 / .pi, fractionDigits: 4) }
                w.endArray()
                w.field("noise_dps", fit.noise * 180 / .pi, fractionDigits: 4)
                w.field("samples", fit.samples)
                w.field("file", path)
                log.notice("gyro calibration kept; restarting the pipeline to apply it", ["file": path, "samples": "\(fit.samples)"])
                _ = apply(configuration, restartPipeline: true)
            } catch {
                reply(&w, id: g.run.command.id, ok: false, error: "cannot write \(path): \(error)")
            }
        }
        w.endObject()
        _ = try? client.publish(topic: topics.prefix + "/cmd/calibrate/result", payload: w.buffer, qos: 1, retain: false)
    }

    private func reply(_ w: inout JSONWriter, id: String?, ok: Bool, error: String?) {
        if let id { w.field("id", id) }
        w.field("ok", ok)
        if let error {
            w.field("error", error)
            log.warning("command refused", ["error": error])
        }
    }

    // MARK: Dashboard (http.enabled; Sources/Agent/Dashboard). Settings apply at the next start.

    private func startDashboard(_ c: AgentConfiguration) {
        guard c.http.enabled else { return }
        do { dashboard = try AgentDashboard(configuration: c) } catch {
            log.error("the dashboard does not start; the agent runs without it", ["listen": c.http.listen, "error": "\(error)"])
            recordError("http: \(error)")
        }
    }

    private func updateDashboard(_ stats: PipelineStatistics) {
        let o = outbox.statistics
        var error = lastError.withLock { $0 }
        if error == nil, let e = o.lastError { error = (e, MonotonicClock.realtimeNanos()) }
        dashboard?.update(AgentStatusSnapshot(
            deviceID: deviceID, topicPrefix: topics.prefix, sourceName: report?.source.name ?? "",
            sourceRate: report?.sourceConfiguration.rate ?? configuration.source.rate, pipeline: stats, outbox: o,
            connected: client.isConnected, broker: client.options.address.description,
            reconnects: reconnectsBase + client.statistics.reconnects, failovers: failovers,
            lastError: error?.text, lastErrorNanos: error?.nanos))
    }

    // MARK: Reporting

    private func statsPayload() -> [UInt8] {
        let m = client.statistics
        return StatsPayload.stats(pipeline: continuity.totals(pipeline.statistics), outbox: outbox.statistics, mqtt: m,
                                  reconnects: reconnectsBase + m.reconnects, refusals: client.refusals)
    }

    private func publishHealth(direct: Bool = false) {
        let source = publisher.takeSourceStatus()
        let o = outbox.statistics
        let refusals = client.refusals
        if refusals.total != refusalsSeen, let text = refusals.last {
            refusalsSeen = refusals.total
            lastError.withLock { $0 = ("mqtt: " + text, MonotonicClock.realtimeNanos()) }
        }
        var error = lastError.withLock { $0 }
        if error == nil, let e = o.lastError { error = (e, MonotonicClock.realtimeNanos()) }
        let storage = storageProblems()
        if storage != storageProblemsSeen {
            if !storage.isEmpty { log.warning("a store cannot write; health is degraded", ["problems": storage.joined(separator: "; ")]) }
            else if !storageProblemsSeen.isEmpty { log.notice("every store writes again") }
            storageProblemsSeen = storage
        }
        let input = activity?.inputProblem
        noteActivityInput(input)
        let payload = StatsPayload.health(sourceFailing: source.failing, sourceError: source.error, connected: client.isConnected,
                                          lastError: error?.text, lastErrorNanos: error?.nanos, outbox: o,
                                          reconnects: reconnectsBase + client.statistics.reconnects,
                                          broker: client.options.address.description, failovers: failovers,
                                          reloadRejected: rejectedReload.withLock { $0 },
                                          storageProblems: storage,
                                          activityInput: activity == nil ? nil : (input.map { ("\($0.code)", $0.message) } ?? ("ok", nil)))
        if direct {
            _ = try? client.publish(topic: topics.health, payload: payload, qos: 1, retain: true)
        } else {
            outbox.enqueueState(topic: topics.health, payload: payload, qos: 1, retain: true)
        }
    }

    /// The kind of problem the activity detector has with its input, `nil` when none (or off).
    private func activityInputCode() -> String? {
        activity?.inputProblem.map { "\($0.code)" }
    }

    /// Logs an activity-input problem once when it appears (again at most every
    /// `activityInputLogInterval` while it lasts) and once when it clears.
    private func noteActivityInput(_ problem: ActivityInputProblem?) {
        let code = problem.map { "\($0.code)" }
        let now = MonotonicClock.nowNanos()
        if let problem {
            if code != activityInputSeen || now &- activityInputLoggedAt >= Self.activityInputLogInterval {
                log.warning("activity detection withheld: \(problem.message)", ["problem": "\(problem.code)"])
                activityInputLoggedAt = now
            }
        } else if activityInputSeen != nil {
            log.notice("activity input usable again; decisions resume")
        }
        activityInputSeen = code
    }

    /// Every store that cannot write right now, with its reason: the spool, the activity history
    /// (writes kept in memory for retry) and the recorder (paused).
    private func storageProblems() -> [String] {
        var out: [String] = []
        if let p = outbox.statistics.spoolWriteProblem { out.append(p) }
        if let store = activity?.store, let p = store.writeProblem {
            out.append("activity history: \(store.pendingWrites) write(s) kept in memory for retry: \(p)")
        }
        if let r = recorder, let e = r.status.error { out.append("recorder paused: \(e)") }
        return out
    }

    private func statusLine() -> String {
        let s = continuity.totals(pipeline.statistics)
        let o = outbox.statistics
        return "samples=\(s.samplesProcessed) mqtt=\(client.isConnected ? "connected" : "disconnected") "
            + "published=\(o.acknowledged) dropped=\(o.dropped.values.reduce(0, +)) outbox_bytes=\(o.queuedBytes) "
            + "events_unacked=\(o.unacknowledgedEvents)"
    }

    private func availableFrames(_ sensors: IMUSample.Contents, _ c: AgentConfiguration) -> [AttitudeReferenceFrame] {
        guard sensors.contains(.magnetometer) else { return [.xArbitraryZVertical] }
        var frames: [AttitudeReferenceFrame] = [.xArbitraryZVertical, .xArbitraryCorrectedZVertical, .xMagneticNorthZVertical]
        if c.fusion.latitude != nil && c.fusion.longitude != nil { frames.append(.xTrueNorthZVertical) }
        return frames
    }

    private func logEffectiveRates(_ report: PipelineStartReport, _ c: AgentConfiguration) {
        let requested = c.source.rate
        let actual = report.sourceConfiguration.rate
        if abs(requested - actual) > 1e-6 {
            log.notice("source runs at a different rate than requested", ["requested_hz": "\(requested)", "rate_hz": "\(actual)"])
        }
        for stream in SensorStream.allCases {
            guard let s = report.streams[stream], s.enabled else { continue }
            if s.capped {
                log.notice("stream rate capped to what the source can do",
                           ["stream": stream.rawValue, "requested_hz": "\(c.streams.settings(for: stream).rate)",
                            "rate_hz": "\(s.rate)"])
            }
        }
    }
}

extension TopicLayout {
    /// Whether `topic` can be published to (no wildcards, no empty levels).
    static func isValidPublishTopic(_ topic: String) -> Bool {
        do { try validatePublishTopic(topic); return true } catch { return false }
    }
}
