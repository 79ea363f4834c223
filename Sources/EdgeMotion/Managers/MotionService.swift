import Platform
import Dispatch
import Logging
import MotionCore
import Sensors
import Synchronization

/// Identifies a consumer of a `MotionService` (stable across pipeline restarts).
public struct MotionConsumerID: Sendable, Hashable {
    let rawValue: UInt64
}

/// Owns the one `MotionPipeline` of a source and shares it among every client: any number of
/// managers (and the agent's MQTT publisher) start and stop streams and change their rates at
/// runtime on one set of threads. Consumer changes reach the processing thread between drains
/// (see `MotionPipeline.addConsumer`); nothing on the per-sample path takes a lock.
///
/// Life cycle: the pipeline starts with the first consumer and stops `idleTimeout` after the
/// last one leaves (the sensor is then idle, like Core Motion powering a sensor down), unless
/// `start()` pinned it running (the agent does). A recording that ends is not restarted.
public final class MotionService: Sendable {
    public let source: any IMUSource
    public let configuration: PipelineConfiguration
    /// How long the pipeline keeps running with no consumer before it stops.
    public let idleTimeout: Duration
    private let staticOutputs: [any PipelineOutput]
    /// Starts the pipeline's threads (`PlatformThread.start`; tests make it fail).
    private let threadStarter: ThreadStarter
    private let lifecycle = DispatchQueue(label: "edgemotion.service")
    private let log = Logger(label: "motion-service")

    private struct Consumer {
        var output: any PipelineOutput
        var schedule: ConsumerSchedule
        var pipelineID: PipelineConsumerID?
    }

    private struct State {
        var pipeline: MotionPipeline?
        var consumers: [UInt64: Consumer] = [:]
        var nextID: UInt64 = 1
        var pinned = false
        /// Bumped on every consumer change, so a scheduled idle stop can tell it is stale.
        var epoch: UInt64 = 0
    }

    private let state = Mutex<State>(State())
    private let activityEngineStorage = Mutex<ActivityEngine?>(nil)

    /// A service for `source`. `configuration` defaults to `libraryConfiguration(for:)`: every
    /// static stream off, the source at up to 200 Hz. `outputs` are static consumers that
    /// receive the configuration's streams (the agent's publisher).
    ///
    /// Create one service per source: a source has one reader. Later `shared(for:)` calls (and
    /// `MotionManager(source:)`, `SensorRecorder(source:)`, …) return this one while it lives.
    public convenience init(source: any IMUSource, configuration: PipelineConfiguration? = nil,
                            outputs: [any PipelineOutput] = [], idleTimeout: Duration = .seconds(1)) {
        self.init(source: source, configuration: configuration, outputs: outputs, idleTimeout: idleTimeout,
                  threadStarter: platformThreadStarter)
    }

    /// `threadStarter` is the seam the agent's tests use to make `pthread_create` fail.
    package init(source: any IMUSource, configuration: PipelineConfiguration? = nil,
                 outputs: [any PipelineOutput] = [], idleTimeout: Duration = .seconds(1),
                 threadStarter: @escaping ThreadStarter) {
        self.threadStarter = threadStarter
        self.source = source
        self.configuration = configuration ?? Self.libraryConfiguration(for: source)
        self.staticOutputs = outputs
        self.idleTimeout = idleTimeout
        // The first service of a source is the one `shared(for:)` hands out, so a
        // `MotionManager(source:)` joins a pipeline built with an explicit configuration.
        Self.registry.withLock { table in
            let key = ObjectIdentifier(source)
            if table[key]?.service == nil { table[key] = WeakService(service: self) }
        }
    }

    /// The default configuration of a library client: the source at 200 Hz (or its maximum),
    /// no static streams; each manager's streams are runtime consumers.
    public static func libraryConfiguration(for source: any IMUSource, rate: Double = 200) -> PipelineConfiguration {
        let sensors = source.capabilities.sensors
        return PipelineConfiguration(
            requestedRate: min(rate, source.capabilities.maximumRate),
            accelerometer: .disabled, gyroscope: .disabled, magnetometer: .disabled, motion: .disabled,
            referenceFrame: sensors.contains(.magnetometer) ? .xArbitraryCorrectedZVertical : .xArbitraryZVertical)
    }

    // MARK: Shared services

    private struct WeakService: @unchecked Sendable { weak var service: MotionService? }
    private static let registry = Mutex<[ObjectIdentifier: WeakService]>([:])

    /// The service of `source`, created on first use: every `MotionManager(source:)` of the
    /// same source object shares one pipeline. Lives as long as a manager holds it.
    public static func shared(for source: any IMUSource) -> MotionService {
        let key = ObjectIdentifier(source)
        if let existing = registry.withLock({ table -> MotionService? in
            table = table.filter { $0.value.service != nil }
            return table[key]?.service
        }) {
            return existing
        }
        let created = MotionService(source: source)   // registers itself unless another won the race
        return registry.withLock { $0[key]?.service } ?? created
    }

    // MARK: Facts about the source

    public var capabilities: SourceCapabilities { source.capabilities }

    /// The running pipeline, if any.
    public var pipeline: MotionPipeline? { state.withLock { $0.pipeline } }

    /// The source's output rate, Hz: as running, or as it will run.
    public var sourceRate: Double {
        pipeline?.sourceRate ?? source.capabilities.effectiveRate(forRequested: configuration.requestedRate)
    }

    /// What `schedule` resolves to on this source (rate capped at the source rate).
    public func effectiveSchedule(_ schedule: StreamSchedule) -> EffectiveSchedule {
        EffectiveSchedule(schedule, sourceRate: sourceRate)
    }

    /// Frames device motion can be referenced to on this source (Core Motion's
    /// `availableAttitudeReferenceFrames()`): without a magnetometer only
    /// `xArbitraryZVertical`; true north also needs the declination.
    public var availableReferenceFrames: [AttitudeReferenceFrame] {
        guard capabilities.sensors.contains(.magnetometer) else { return [.xArbitraryZVertical] }
        var frames: [AttitudeReferenceFrame] = [.xArbitraryZVertical, .xArbitraryCorrectedZVertical, .xMagneticNorthZVertical]
        if configuration.declination != nil { frames.append(.xTrueNorthZVertical) }
        return frames
    }

    // MARK: Activity

    /// The source's activity engine (activity detection, step counting, history), created on
    /// first use with an in-memory history unless `useActivityHistory(_:)` chose a store first.
    public var activityEngine: ActivityEngine {
        activityEngineStorage.withLock { e in
            if let e { return e }
            let engine = ActivityEngine(service: self)
            e = engine
            return engine
        }
    }

    /// Makes the activity engine keep its history in `history` (e.g. the agent's SQLite
    /// `ActivityHistoryStore`). Call before the first activity or pedometer client; returns the
    /// engine (the existing one if it was already created).
    @discardableResult
    public func useActivityHistory(_ history: any ActivityHistoryStoring,
                                   activity: ActivityConfiguration = ActivityConfiguration(),
                                   pedometer: PedometerConfiguration = PedometerConfiguration()) -> ActivityEngine {
        activityEngineStorage.withLock { e in
            if let e { return e }
            let engine = ActivityEngine(service: self, history: history, activity: activity, pedometer: pedometer)
            e = engine
            return engine
        }
    }

    // MARK: Life cycle

    /// Starts the pipeline now and keeps it running until `stop()` (for static outputs).
    @discardableResult
    public func start() throws -> PipelineStartReport {
        try start(holdingDelivery: false)
    }

    /// Starts the pipeline like `start()`; with `holdingDelivery: true` no sample is read until
    /// `beginDelivery()`, so consumers added after looking at the report (the agent's activity
    /// detection needs to know the source has an accelerometer) see a lossless source from its
    /// first sample. A pipeline already running is not held.
    public func start(holdingDelivery: Bool) throws -> PipelineStartReport {
        try lifecycle.sync {
            state.withLock { $0.pinned = true }
            return try ensurePipeline(holdingDelivery: holdingDelivery).report!
        }
    }

    /// Releases a pipeline started with `holdingDelivery: true`. Idempotent.
    public func beginDelivery() {
        state.withLock { $0.pipeline }?.beginDelivery()
    }

    /// Stops the pipeline (waits for both threads). Consumers receive `didEnd(.stopped)`; a
    /// later `addConsumer` starts a new pipeline.
    public func stop() {
        lifecycle.sync {
            let p = state.withLock { s -> MotionPipeline? in
                s.pinned = false
                return s.pipeline
            }
            p?.stop()
            state.withLock { s in if let p, s.pipeline === p { s.pipeline = nil } }
        }
    }

    // MARK: Consumers

    /// Adds a consumer, starting the pipeline if needed. Throws the source's error when it
    /// cannot start.
    public func addConsumer(_ output: any PipelineOutput, schedule: ConsumerSchedule) throws -> MotionConsumerID {
        try lifecycle.sync {
            let id = state.withLock { s -> UInt64 in
                defer { s.nextID += 1; s.epoch += 1 }
                s.consumers[s.nextID] = Consumer(output: output, schedule: schedule, pipelineID: nil)
                return s.nextID
            }
            let pipeline: MotionPipeline
            do {
                pipeline = try ensurePipeline()
            } catch {
                state.withLock { _ = $0.consumers.removeValue(forKey: id) }
                throw error
            }
            // ensurePipeline attached every consumer of a new pipeline; attach to a running one.
            state.withLock { s in
                if s.consumers[id]?.pipelineID == nil {
                    s.consumers[id]?.pipelineID = pipeline.addConsumer(output, schedule: schedule)
                }
            }
            return MotionConsumerID(rawValue: id)
        }
    }

    /// Changes a consumer's rates or frame at runtime.
    public func updateConsumer(_ id: MotionConsumerID, schedule: ConsumerSchedule) {
        lifecycle.sync {
            state.withLock { s in
                guard var c = s.consumers[id.rawValue] else { return }
                c.schedule = schedule
                s.consumers[id.rawValue] = c
                s.epoch += 1
                if let p = s.pipeline, let pid = c.pipelineID { p.updateConsumer(pid, schedule: schedule) }
            }
        }
    }

    /// Removes a consumer; the pipeline stops after `idleTimeout` when it was the last one.
    public func removeConsumer(_ id: MotionConsumerID) {
        lifecycle.sync {
            let idle = state.withLock { s -> UInt64? in
                guard let c = s.consumers.removeValue(forKey: id.rawValue) else { return nil }
                s.epoch += 1
                if let p = s.pipeline, let pid = c.pipelineID { p.removeConsumer(pid) }
                return s.consumers.isEmpty && !s.pinned && s.pipeline != nil ? s.epoch : nil
            }
            if let epoch = idle { scheduleIdleStop(epoch: epoch) }
        }
    }

    /// Runs on `lifecycle`: the running pipeline, or a new, started one with every consumer.
    private func ensurePipeline(holdingDelivery: Bool = false) throws -> MotionPipeline {
        if let p = state.withLock({ $0.pipeline }) { return p }
        let p = MotionPipeline(source: source, configuration: configuration, outputs: staticOutputs,
                               threadStarter: threadStarter)
        // Consumers first: the processing thread applies them before its first drain, so a fast
        // (replayed) source loses no sample to the attach.
        var attached: [UInt64: PipelineConsumerID] = [:]
        for (key, c) in state.withLock({ $0.consumers }) {
            attached[key] = p.addConsumer(c.output, schedule: c.schedule)
        }
        try p.start(holdingDelivery: holdingDelivery)
        state.withLock { s in
            s.pipeline = p
            for (key, id) in attached { s.consumers[key]?.pipelineID = id }
        }
        return p
    }

    private func scheduleIdleStop(epoch: UInt64) {
        let nanos = Int(min(idleTimeout.nonNegativeNanoseconds, UInt64(Int.max)))
        lifecycle.asyncAfter(deadline: .now() + .nanoseconds(nanos)) { [weak self] in
            guard let self else { return }
            // Runs on `lifecycle`, so no consumer can be added while the pipeline stops.
            let p = self.state.withLock { s -> MotionPipeline? in
                guard s.epoch == epoch, s.consumers.isEmpty, !s.pinned else { return nil }
                return s.pipeline
            }
            guard let p else { return }
            self.log.info("no consumers; stopping the source", ["source": self.source.capabilities.name])
            p.stop()
            self.state.withLock { s in if s.pipeline === p { s.pipeline = nil } }
        }
    }

    deinit {
        // The last manager is gone: stop the threads (they hold only the pipeline, not us).
        state.withLock { $0.pipeline }?.stop()
    }
}
