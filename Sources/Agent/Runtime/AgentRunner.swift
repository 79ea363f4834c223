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

/// Runs the agent: source → pipeline → outbox → MQTT, until a signal, the duration, or the end of
/// a recording; reloads its configuration on SIGHUP; obeys `cmd/…` when `control.enabled`; talks
/// to systemd (`Type=notify`) when `$NOTIFY_SOCKET` is set.
///
/// Everything here runs on the main thread except the callbacks of the MQTT client (network thread),
/// which only hand work over (commands queue, connection errors) under locks.
///
/// A composition root over parts (`AgentPart`): `agentParts` starts the broker connection, the
/// health reporter, the outbox, the dashboard, the pipeline's group and the command handler in
/// order and stops them in reverse; a reload that restarts the pipeline stops and starts
/// `pipelineParts` alone, in the same order (`AgentRunner+Lifecycle` writes both orders, once).
///
/// One file per concern: this one holds the state (Swift extensions cannot hold stored
/// properties), start-up and the stop; `+Wiring` builds what every part uses (topics, client,
/// outbox, publisher: none optional); `+MainLoop` the broker wait, signals and the 100 ms loop;
/// `+Lifecycle` the parts and their order; `+Parts` builds and installs the outbox, the MQTT
/// client, the motion service and their publishers; `+Reload` re-reads and applies the
/// configuration (SIGHUP) through `ConfigurationDiff`; `+Commands` answers `cmd/*` (queued by the
/// `CommandHandler` part); `+Health` publishes `stats`, `health` and `meta` (`HealthReporter`);
/// `+Dashboard` feeds the web page and `+Calibration` runs its calibration page.
///
/// `@unchecked Sendable`: the runner is created on one thread and `run` is called once, on the
/// thread that then owns every `var` here (the "main thread" above; tests run it on a thread of
/// their own). The MQTT network thread only reaches the `Mutex`/`Atomic` members (`commandHandler`'s queue,
/// `meta`, `lastError`, `healthDirty`, `historyResponder`, `latestSnapshots`), through the
/// callbacks `install` sets; nothing else crosses threads.
public final class AgentRunner: @unchecked Sendable {
    public internal(set) var configuration: AgentConfiguration
    let configPath: String?
    let overrides: ConfigurationOverrides
    let log = Logger(label: "agent")
    let notifier = SystemdNotifier()

    // Running parts (main thread), built by `init` (`AgentRunner+Wiring`).
    var deviceID: String
    /// Replaced by a reload that changes the device id or the topic prefix.
    var topics: TopicLayout
    /// One outbox for the whole run (its settings take effect at the next start).
    let outbox: Outbox
    /// Replaced on failover and by a reload that moves to another broker (`install`).
    var client: MQTTClient
    /// Kept across pipeline restarts (`seq` continues); its routes follow reloads.
    let publisher: MQTTPublisher
    /// The source's failures and recoveries, straight from the pipeline (a static output).
    let sourceHealth: SourceHealthReport
    /// `events/status`'s `(run, seq)`: one numbering for the agent's life, across pipeline restarts.
    let statusEvents = EventSequence()
    /// The running motion service (nil before the first pipeline part started).
    var service: MotionService?
    /// The running (or last stopped) pipeline of `service`, for statistics; folded into
    /// `continuity` when the next one starts.
    var pipeline: MotionPipeline?
    /// Every part, in start order: broker connection, health reporter, outbox, dashboard, pipeline,
    /// command handler.
    let agentParts = PartGroup("agent", rollbackSeconds: 2)
    /// The pipeline's parts (motion service and its consumers), itself the last of `agentParts`.
    let pipelineParts = PartGroup("pipeline")
    /// `cmd/*`: queued by the network thread, performed by the main loop while started.
    let commandHandler = CommandHandler()
    /// `stats` and `health`: periodic while started, the last ones at its stop.
    let healthReporter = HealthReporter()
    /// Told of each part started, stopped or failed (on the runner's thread); for tests.
    var partObserver: ((PartEvent) -> Void)?
    /// Sample numbers and counters carried across pipeline restarts (reloads).
    var continuity = PipelineContinuity()
    /// Activity detection, pedometer and their history (`activity.enabled`).
    var activity: ActivityPublisher?
    /// Motion events, vibration and tilt thresholds (`events.enabled`).
    var motionEvents: MotionEventPublisher?
    /// Answers `query/activity` and `query/pedometer` from the history, `query/recordings` from the
    /// recorder's files.
    let historyResponder = Mutex<HistoryQueryResponder?>(nil)
    /// The recorder's files for `query/recordings` (`recorder.enabled`; fixed until restart).
    var recordingCatalog: RecordingCatalog?
    /// Newest value per stream for `latest/<stream>` and `query/latest`.
    let latestSnapshots = Mutex<LatestSnapshots?>(nil)
    var report: PipelineStartReport?
    var synthetic: SyntheticEventSource?
    /// Home Assistant discovery and the throttled summary (`home_assistant.enabled`); follows the
    /// installed MQTT client.
    var homeAssistant: HomeAssistantIntegration?
    /// `auxiliary:` environmental sensors, read and published from the main loop.
    var auxiliary: AuxiliaryStreams?
    var reconnectsBase = 0
    /// Which of `brokerURLs(configuration)` is in use, and when to move on (`mqtt.fallback_brokers`).
    var failover = BrokerFailover()
    /// Outputs besides the publisher: Home Assistant's summary and the recorder, when enabled.
    var extraOutputs: [any PipelineOutput] = []
    /// Says "device requires movement" once per episode (north-referenced frames).
    var movementAdvisor: MovementAdvisor?
    /// `cmd/mount`: learning the mount from rest, and the rotations the pipeline applies.
    var mountControl: MountControl?
    /// `none`, `loaded` or `rejected`: what became of the calibration file (in `meta`).
    var calibrationState = "none"
    /// A running `cmd/calibrate` gyro calibration: the consumer, its service and when it started.
    var gyroCalibration: (run: GyroCalibrationRun, service: MotionService, consumer: MotionConsumerID, startNanos: UInt64)?
    /// The web page and `/metrics` (`http.enabled`; Sources/Agent/Dashboard).
    var dashboard: AgentDashboard?
    /// The dashboard's calibration page: its flow and the step collecting samples (`+Calibration`).
    var calibrationPage = CalibrationPageState()
    /// The file recorder (`recorder.enabled`), for `health`'s storage state.
    var recorder: FileSensorRecorder?
    /// Storage problems last published in `health` (republished when they change).
    var storageProblemsSeen: [String] = []
    /// `client.refusals.total` last reported in `health.last_error`.
    var refusalsSeen = 0
    /// The kind of activity-input problem last published in `health` (`nil`: none), and when
    /// (monotonic ns) it was last logged: one line when it appears, again at most every
    /// `activityInputLogInterval` while it lasts, one when it clears.
    var activityInputSeen: String?
    var activityInputLoggedAt: UInt64 = 0
    static let activityInputLogInterval: UInt64 = 600_000_000_000

    // Shared with the network thread.
    let meta = Mutex<[UInt8]?>(nil)
    let lastError = Mutex<(text: String, nanos: UInt64)?>(nil)
    let healthDirty = Atomic<Bool>(true)
    /// When the source last failed (monotonic ns), for the recovery event's downtime.
    var sourceFailedAt: UInt64?
    /// Re-open attempts counted when the source last failed.
    var retriesAtFailure: UInt64 = 0

    /// Starts every thread the agent owns (the pipeline's, the outbox's pump, each MQTT client's
    /// network thread): `platformThreadStarter` in production; tests make `pthread_create` fail.
    let threadStarter: ThreadStarter

    /// Builds the source from `source:` settings; tests swap in sources that fail on purpose.
    var makeSource: (AgentConfiguration) throws -> any IMUSource = {
        try SourceFactory.makeSource($0.source, configurationFile: $0.sourceFile, streams: $0.streams)
    }

    /// Builds the device id, the topics, the MQTT client (not yet connecting), the outbox (its
    /// pump starts; its spool opens) and the publisher; `run` starts them. A failure is logged
    /// here and thrown with the process exit status it means (`SetupFailure`).
    /// - Parameters:
    ///   - configPath: the file to re-read on SIGHUP (nil: built-in defaults, reload does nothing).
    ///   - overrides: command-line values re-applied after each reload.
    public convenience init(configuration: AgentConfiguration, configPath: String? = nil,
                            overrides: ConfigurationOverrides = ConfigurationOverrides()) throws(SetupFailure) {
        try self.init(configuration: configuration, configPath: configPath, overrides: overrides, threadStarter: platformThreadStarter)
    }

    /// The same with every thread started by `threadStarter` (tests make `pthread_create` fail).
    package init(configuration: AgentConfiguration, configPath: String? = nil,
                 overrides: ConfigurationOverrides = ConfigurationOverrides(),
                 threadStarter: @escaping ThreadStarter) throws(SetupFailure) {
        self.threadStarter = threadStarter
        let waker = MainLoopWaker()
        self.waker = waker
        sourceHealth = SourceHealthReport(onChange: { waker.wake() })
        let w = try Self.wire(configuration, threadStarter: threadStarter)
        self.configuration = configuration
        self.configPath = configPath
        self.overrides = overrides
        deviceID = w.deviceID
        topics = w.topics
        client = w.client
        outbox = w.outbox
        publisher = w.publisher
        agentParts.observer = { [unowned self] in partEvent($0) }
        pipelineParts.observer = { [unowned self] in partEvent($0) }
        healthReporter.publishFinal = { [unowned self] in publishFinalReport() }
    }

    /// The last rejected reload, shown in `health` (`reload_rejected`) until a reload succeeds.
    let rejectedReload = Mutex<(text: String, nanos: UInt64)?>(nil)

    // MARK: Run

    /// Runs until SIGINT/SIGTERM, `duration` seconds, or the end of a replayed recording.
    /// Call `SignalWaiter.blockSignals()` first, before `init` (which starts the outbox's thread).
    /// Returns the process exit status.
    public func run(duration: Double?) -> Int32 {
        let c = configuration
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
        let newClient = client
        agentParts.append(brokerConnectionPart(), healthReporter, outboxPart())
        do {
            // Only the client's network thread can fail here; the client retries the broker by itself.
            try agentParts.start()
        } catch {
            if let t = Self.threadStartFailure(in: error) { Self.logThreadStartFailure(t, .startUp, log: log) }
            else { log.error("cannot start the MQTT client", ["error": "\(error)"]) }
            outbox.stop(timeout: .milliseconds(200))
            return 1
        }
        let connected: Bool
        switch waitForBroker(newClient, timeout: 5) {
        case .connected: connected = true
        case .timedOut: connected = false
        case .stopRequested(let signo):
            // Nothing was sampled yet: no pipeline to drain, only the client and the outbox.
            let reason = signo == SIGINT ? "SIGINT" : "SIGTERM"
            log.notice("stopping", ["reason": reason, "during": "the initial broker wait"])
            notifier.notify("STOPPING=1\nSTATUS=stopping: " + reason)
            agentParts.stop(within: StopBudget(seconds: 0.7))
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

        pipelineParts.replaceParts(makePipelineParts(source: source, configuration: c))
        agentParts.append(dashboardPart(), pipelineParts, commandHandler)
        do {
            // A failed start has already stopped, in reverse, what was started (`offline` said).
            try agentParts.start()
        } catch {
            if let t = Self.threadStartFailure(in: error) {
                Self.logThreadStartFailure(t, .startUp, log: log)
            } else {
                log.error("cannot start the source", ["source": source.capabilities.name, "error": "\(error)"])
            }
            return 1
        }
        if c.debug.syntheticEventsPerMinute > 0 {
            let events = SyntheticEventSource(topic: topics.event("synthetic"), perMinute: c.debug.syntheticEventsPerMinute)
            synthetic = events
            log.notice("debug: synthetic events enabled (test aid)", ["per_minute": "\(c.debug.syntheticEventsPerMinute)", "run": events.sequence.run])
        }

        let exitReason = mainLoop(duration: duration)
        return stop(reason: exitReason)
    }

    /// Where query answers may go, for the running configuration and topic prefix.
    var replyTopicPolicy: ReplyTopicPolicy {
        ReplyTopicPolicy(prefix: topics.prefix, template: configuration.mqtt.topicPrefix,
                         allowedPrefix: configuration.control.replyTopicPrefix)
    }
    /// Refused requests and reply topics, logged bounded (shared by every responder).
    let requestLog = RequestLog()

    /// A SIGHUP received before the main loop ran (applied by its first turn).
    var reloadPending = false
    /// SIGHUP's in-process twin: `requestReload()` from any thread, applied by the main loop's
    /// next turn (it wakes the loop) exactly as a SIGHUP is. For embedding and tests, which cannot
    /// send the process a signal without reaching every runner in it.
    let reloadRequested = Atomic<Bool>(false)

    /// Asks the running agent to re-read its configuration file, as SIGHUP does.
    func requestReload() {
        reloadRequested.store(true, ordering: .relaxed)
        waker.wake()
    }

    /// SIGTERM's in-process twin: `requestStop()` from any thread; the main loop's next turn
    /// stops the agent (the graceful stop, reason `stop requested`).
    let stopRequested = Atomic<Bool>(false)
    func requestStop() {
        stopRequested.store(true, ordering: .relaxed)
        waker.wake()
    }
    /// Ends the main loop's wait when another thread has work for it (`MainLoopWaker`).
    let waker: MainLoopWaker
    /// Main-loop turns so far (for tests: an idle agent turns about once a second).
    let turns = Atomic<Int>(0)
    /// Ignored signals already logged (each is logged once).
    var loggedSignals: Set<Int32> = []

    /// SIGUSR1 asked for `stats` and `health` now.
    var statisticsRequested = false
    /// Set when a part the agent cannot run without is gone for good (a reload that could start
    /// neither the new pipeline nor the previous one; a failover whose new client's network thread
    /// could not be created): the main loop stops the agent with this reason and exit status 1
    /// (an agent that samples or publishes nothing is not kept alive; systemd's `Restart=` starts
    /// it afresh).
    var lostForGood: String?

    static let endOfRecording = "end of recording"
    /// How long the end of a replay may wait for the outbox to empty before the normal stop.
    static let endOfRecordingDrainLimit = Duration.seconds(120)

    var statsIntervalNanos: UInt64 { UInt64(configuration.process.statsIntervalSeconds * 1e9) }

    /// Graceful stop, bounded by `process.stop_timeout_s`: stop sampling (partial batches flushed),
    /// deliver what the outbox holds, keep unacknowledged events in the spool, announce `offline`,
    /// disconnect.
    ///
    /// At the end of a replayed recording nobody asked to stop, and a replay is lossless: the outbox
    /// is first drained without the stop deadline (bounded by `endOfRecordingDrainLimit` instead), so
    /// a loaded machine or a slow broker cannot cut the recording's tail off.
    func stop(reason: String) -> Int32 {
        if reason == Self.endOfRecording {
            pipelineParts.stop(within: StopBudget(seconds: configuration.process.stopTimeoutSeconds))
            if !outbox.drain(timeout: Self.endOfRecordingDrainLimit) {
                log.warning("end of recording: the outbox did not empty in time", ["limit_s": "\(Self.endOfRecordingDrainLimit.components.seconds)"])
            }
        }
        let budget = StopBudget(seconds: configuration.process.stopTimeoutSeconds)
        log.notice("stopping", ["reason": reason, "deadline_s": "\(budget.seconds)"])
        notifier.notify("STOPPING=1\nSTATUS=stopping: " + reason)
        // Pipeline parts, dashboard, outbox (delivered), final stats and health, offline, disconnect.
        agentParts.stop(within: budget)
        let s = currentStatistics
        let o = outbox.statistics
        log.notice("stopped", ["samples": "\(s?.samplesProcessed ?? 0)", "ring_drops": "\(s?.ringDrops ?? 0)",
                               "produced": "\(o.produced)", "acknowledged": "\(o.acknowledged)",
                               "dropped": "\(o.dropped.values.reduce(0, +))", "refused_by_broker": "\(client.refusals.total)",
                               "events_kept_in_spool": "\(o.unacknowledgedEvents)",
                               "delivery": Self.deliveryNote(client.options.protocolVersion),
                               "took_ms": "\(budget.elapsedMilliseconds)"])
        return lostForGood == nil ? 0 : 1
    }

    /// What `acknowledged` in the stop summary can and cannot prove (docs/reliability.md).
    static func deliveryNote(_ version: MQTTProtocolVersion) -> String {
        version == .v5
            ? "QoS 0 delivery is unknowable (no acknowledgement; an ACL refusal of it is silent); QoS 1 refusals are counted in refused_by_broker"
            : "MQTT 3.1.1: QoS 0 delivery is unknowable and a broker acknowledges QoS 1 publishes its ACL drops, so acknowledged is not proof of delivery; use protocol 5 to see refusals"
    }

}

extension TopicLayout {
    /// Whether `topic` can be published to (no wildcards, no empty levels).
    static func isValidPublishTopic(_ topic: String) -> Bool {
        do { try validatePublishTopic(topic); return true } catch { return false }
    }
}
