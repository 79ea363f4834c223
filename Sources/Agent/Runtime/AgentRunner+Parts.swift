import EdgeMotion
import Logging
import Messaging
import Platform
import MotionCore
import Sensors
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

extension AgentRunner {
    // MARK: Parts

    /// The outbox, with its spool in `state_directory` (created with its missing parents) when
    /// `spool.enabled`, its pump thread started by `threadStarter`. A spool that cannot be opened
    /// or a pump thread that cannot be created fails start-up (logged): never a silent downgrade
    /// to events kept in memory only, nor an outbox that never sends.
    static func makeOutbox(_ c: AgentConfiguration, log: Logger,
                           threadStarter: @escaping ThreadStarter) -> Result<Outbox, OutboxStartError> {
        var settings = OutboxSettings(maximumStreamBytes: c.outbox.maxBytes,
                                      maximumStreamAgeMilliseconds: Int(c.outbox.maxAgeSeconds * 1000),
                                      inflightWindow: c.outbox.inflight,
                                      spoolFsync: c.spool.fsync, maximumSpoolBytes: c.spool.maxBytes)
        if c.spool.enabled { settings.spoolPath = SpoolConfiguration.path(stateDirectory: c.stateDirectory) }
        do throws(OutboxStartError) {
            return .success(try Outbox(settings: settings, threadStarter: threadStarter))
        } catch {
            switch error {
            case .spool(let e):
                log.error("cannot open the event spool; not starting",
                          ["error": e.description,
                           "hint": "make state_directory (\(c.stateDirectory)) creatable and writable, or set spool.enabled: false to keep events in memory only"])
            case .thread(let t):
                logThreadStartFailure(t, .startUp, log: log)
            }
            return .failure(error)
        }
    }

    static func routes(_ c: AgentConfiguration, _ t: TopicLayout) -> [MQTTPublisher.StreamRoute] {
        let id = c.device.resolvedID()
        let route = { (s: StreamSettings, topic: String) in
            MQTTPublisher.StreamRoute(topic: topic, qos: s.qos, retain: s.retain, format: s.format, deviceID: id)
        }
        var motion = route(c.streams.motion, t.motion)
        motion.outputFrame = c.fusion.outputFrame
        return [route(c.streams.accelerometer, t.sensor("accelerometer")), route(c.streams.gyroscope, t.sensor("gyroscope")),
                route(c.streams.magnetometer, t.sensor("magnetometer")), motion]
    }

    static func makeClient(_ c: AgentConfiguration, topics: TopicLayout, brokerIndex: Int = 0,
                           threadStarter: @escaping ThreadStarter) throws -> MQTTClient {
        let urls = brokerURLs(c)
        let options = try c.connectionOptions(brokerURL: urls[min(brokerIndex, urls.count - 1)], statusTopic: topics.status)
        return try MQTTClient(options: options, threadStarter: threadStarter)
    }

    /// `mqtt.broker` followed by `mqtt.fallback_brokers`.
    static func brokerURLs(_ c: AgentConfiguration) -> [String] {
        (c.mqtt.broker.map { [$0] } ?? []) + c.mqtt.fallbackBrokers
    }

    /// Failover: when the current broker has been unreachable for `mqtt.failover_after_s` and other
    /// brokers are configured, the next one (in order, wrapping) gets a new client. The agent stays
    /// on a broker that works (sticky); the outbox re-sends what was in flight.
    func failOverIfDue(now: UInt64) {
        let urls = Self.brokerURLs(configuration)
        guard let next = failover.check(connected: client.isConnected, now: now, brokers: urls.count,
                                        afterSeconds: configuration.mqtt.failoverAfterSeconds) else { return }
        let current = failover.index
        let replacement: MQTTClient
        do { replacement = try Self.makeClient(configuration, topics: topics, brokerIndex: next, threadStarter: threadStarter) } catch {
            log.error("cannot create a client for the next broker; skipping it", ["broker": urls[next], "error": "\(error)"])
            failover.skipped(next)
            return
        }
        log.warning("broker unreachable; failing over to the next one",
                    ["from": urls[current], "to": urls[next], "after_s": "\(configuration.mqtt.failoverAfterSeconds)"])
        recordError("mqtt: \(urls[current]) unreachable for \(configuration.mqtt.failoverAfterSeconds) s; failed over to \(urls[next])")
        let old = client
        old.disconnect(timeout: .milliseconds(300))
        reconnectsBase += old.statistics.reconnects
        failover.moved(to: next)
        installReplacement(replacement)
    }

    /// `install` for a client that replaces a retired one (failover, a reload's new broker). If
    /// its network thread cannot be created nothing would ever be published again: one error
    /// line, and the agent stops with exit status 1 (`lostForGood`).
    func installReplacement(_ replacement: MQTTClient) {
        do throws(ThreadStartError) { try install(replacement) } catch {
            Self.logThreadStartFailure(error, .replacementClient, log: log)
            recordError("mqtt: \(error)")
            lostForGood = "no MQTT network thread for the new client"
        }
    }

    /// Wires a new client to the outbox and starts it. `status`, `meta` (retained) are (re)announced
    /// on every connection: a broker restart without persistence forgets them.
    /// - Throws: `ThreadStartError` when the client's network thread cannot be created (the
    ///   caller decides: exit status 1 at start-up and at a failover).
    func install(_ newClient: MQTTClient) throws(ThreadStartError) {
        let statusTopic = topics.status, metaTopic = topics.meta
        let commandPattern = topics.commandPattern
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
            // READY, failover and `health` follow the connection on the main loop's next turn.
            waker.wake()
            // The outbox observes the connection itself (`outbox.attach` below).
        }
        // One router for every subscription: Home Assistant's birth, history queries, then commands.
        attachHistoryQueries(to: newClient, subscribe: true)
        do { try newClient.subscribe(topics.query("latest"), qos: 1) } catch {
            log.error("cannot subscribe to query/latest", ["error": "\(error)"])
        }
        // Taken now (main thread): the closure runs on the MQTT network thread.
        let policy = replyTopicPolicy, requestLog = requestLog
        newClient.onMessage = { [weak self, weak newClient] m in
            if self?.homeAssistant?.handle(m) == true { return }
            if self?.historyResponder.withLock({ $0 })?.handle(m) == true { return }
            if let latest = self?.latestSnapshots.withLock({ $0 }), let c = newClient,
               latest.handle(m, client: c, policy: policy, requestLog: requestLog) { return }
            self?.commandHandler.offer(m)
            self?.waker.wake()
        }
        if configuration.control.enabled {
            do { try newClient.subscribe(commandPattern, qos: 1) } catch {
                log.error("cannot subscribe to commands", ["pattern": commandPattern, "error": "\(error)"])
            }
        }
        homeAssistant?.attach(newClient)
        outbox.attach(newClient)
        client = newClient
        do throws(MQTTError) {
            try newClient.start()
        } catch {
            if case .threadStart(let t) = error.kind { throw t }
            log.error("cannot start the MQTT client", ["error": "\(error)"])
            recordError("mqtt: \(error)")
        }
    }

    /// The first pipeline part: the service over `source`, with the publisher (and Home
    /// Assistant's outputs, the recorder) as static outputs, started with delivery held until
    /// every consumer is attached (a lossless, as-fast-as-possible source would otherwise run
    /// ahead of activity detection and the advisors). `beginDelivery` lets samples flow.
    func startMotionService(source: any IMUSource, configuration c: AgentConfiguration) throws {
        if let previous = pipeline {
            // Stopped by this part's stop: its counters and sample numbers carry over.
            continuity.retire(previous)
            pipeline = nil
        }
        var pc = PipelineConfiguration(c)
        pc.sequenceOffset = continuity.nextSequence
        (pc.calibration, calibrationState) = FusionSetup.calibration(c, sensor: deviceID, log: log)
        var mountOrigin = MountSettings.Origin.identity
        do throws(MountFileError) { (pc.mount, mountOrigin) = try MountSetup.resolveWithOrigin(c) } catch {
            throw ApplyFailure(description: "source.mount: \(error)")
        }
        let svc = MotionService(source: source, configuration: pc, outputs: [publisher, sourceHealth] + extraOutputs,
                                threadStarter: threadStarter)
        publisher.reset(lossless: false)
        let r = try svc.start(holdingDelivery: true)
        guard let p = svc.pipeline else {
            svc.stop()
            throw ApplyFailure(description: "the pipeline stopped right after starting")
        }
        service = svc
        pipeline = p
        report = r
        if let m = mountControl {
            m.pipelineStarted(with: pc.mount, origin: mountOrigin)
        } else {
            mountControl = MountControl(current: pc.mount, origin: mountOrigin)
        }
        if !pc.mount.isIdentity { log.notice("mount applied", ["accel_gyro": "\(pc.mount.inertial.matrix)", "magnetometer": "\(pc.mount.magnetometer.matrix)"]) }
        noteCalibrationApplied(pc.calibration, report: r)
    }

    /// The last pipeline part: the publisher's mode (lossless for a replay), the dashboard's
    /// feed, then samples flow; `meta` is (re)announced.
    func beginDelivery(configuration c: AgentConfiguration) {
        guard let svc = service, let r = report else { return }
        publisher.reset(lossless: r.sourceConfiguration.lossless)
        dashboard?.attach(service: svc, activity: activity != nil, configuration: c)
        svc.beginDelivery()
        announce(c)
        log.notice("running", ["device_id": deviceID, "source": r.source.name,
                               "rate_hz": "\(r.sourceConfiguration.rate)", "prefix": topics.prefix])
    }

    /// Logs capped rates and (re)publishes the retained `meta` (also after `cmd/mount` changed
    /// the rotations: `meta` reports the applied ones).
    func announce(_ c: AgentConfiguration, logRates: Bool = true) {
        guard let r = report else { return }
        if logRates { logEffectiveRates(r, c) }
        let m = MetaPayload.encode(deviceID: deviceID, report: r, configuration: c,
                                   availableFrames: availableFrames(r.source.sensors, c), calibration: calibrationState,
                                   mount: mountControl?.current ?? .identity, mountOrigin: mountControl?.origin ?? .identity)
        meta.withLock { $0 = m }
        if client.isConnected { _ = try? client.publish(topic: topics.meta, payload: m, qos: 1, retain: true) }
    }

    /// Starts the motion-event detectors when configured and the source has an accelerometer.
    func startMotionEvents(_ c: AgentConfiguration, report r: PipelineStartReport) {
        guard c.events.enabled, r.source.sensors.contains(.accelerometer) else { return }
        guard let service else { return }
        let e = MotionEventPublisher(service: service, settings: c.events, stateDirectory: c.stateDirectory,
                                     outbox: outbox, topics: topics)
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
    func startActivity(_ c: AgentConfiguration, report r: PipelineStartReport) {
        guard c.activity.enabled, r.source.sensors.contains(.accelerometer), let service else { return }
        do {
            let a = try ActivityPublisher(service: service, settings: c.activity, stateDirectory: c.stateDirectory,
                                          outbox: outbox, topics: topics)
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
    func attachHistoryQueries(to client: MQTTClient, subscribe: Bool) {
        var source = recordingCatalog.map(HistoryQueryResponder.Source.recordings) ?? HistoryQueryResponder.Source()
        if let a = activity { source = .store(a.store, recordings: recordingCatalog) }
        let responder = HistoryQueryResponder(client: client, topics: topics, source: source,
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
    func announceSourceTransitions(stats: PipelineStatistics) {
        let transitions = sourceHealth.takeTransitions()
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
                                    attempts: stats.sourceRetries &- retriesAtFailure, sequence: statusEvents)
            outbox.enqueueEvent(topic: topics.event("status"), payload: payload)
        }
        healthDirty.store(true, ordering: .relaxed)
    }

    /// A step of the realtime clock (NTP's first sync, `date -s`), checked each stats tick: UTC
    /// is mapped anew from then on (never reordering samples) and the step announced once on
    /// `events/status` as `clockStepped` (docs/topics.md).
    func announceClockStep() {
        guard let step = publisher.remapClockIfStepped() else { return }
        let seconds = Double(step.nanos) / 1e9
        log.warning("the wall clock stepped; UTC in payloads is mapped anew from now on", ["step_s": "\(seconds)"])
        outbox.enqueueEvent(topic: topics.event("status"), payload: ClockStepEvent.payload(step: step, sequence: statusEvents))
    }

    func recordError(_ text: String) {
        lastError.withLock { $0 = (text, MonotonicClock.realtimeNanos()) }
        healthDirty.store(true, ordering: .relaxed)
        waker.wake()
    }
}
