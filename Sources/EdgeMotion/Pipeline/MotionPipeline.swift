// Over ~400 lines: the pipeline's whole lifecycle (start, reschedule, mount, end, stop) and the
// hand-over between its acquisition and processing threads live in one type so the thread rules
// are read in one place. A candidate for the issue-17 split into parts with ordered start/stop.
import Logging
import MotionCore
import Sensors
import Synchronization

#if canImport(Glibc)
import Glibc
#endif
import Platform

/// What the pipeline actually runs, known after `start()`: the source's effective rate and each
/// stream's effective schedule (requested rates capped to what the hardware can do, like Core
/// Motion's update-interval caps).
public struct PipelineStartReport: Sendable, Hashable {
    public var source: SourceCapabilities
    public var sourceConfiguration: SourceConfiguration
    public var streams: [SensorStream: EffectiveSchedule]
    public var motion: EffectiveSchedule
}

/// The real-time pipeline: source → acquisition thread → `SampleRing` → processing thread
/// (fusion, decimation, batching) → outputs.
///
/// It knows nothing of MQTT. The acquisition thread never allocates, logs or blocks on anything
/// but the source; the processing thread does no allocation per sample in steady state.
/// With `configuration.processingThread == .acquisition` there is one thread: it drains the ring
/// and runs the outputs right after each read (one wake-up per burst instead of two), so a
/// stalled output delays the next read instead of filling the ring.
public final class MotionPipeline: Sendable {
    public let source: any IMUSource
    public let configuration: PipelineConfiguration
    private let outputs: [any PipelineOutput]
    private let ring: SampleRing<IMUSample>
    private let counters = PipelineCounters()
    private let log = Logger(label: "pipeline")

    private let running = Atomic<Bool>(false)
    private let acquisitionFinished = Atomic<Bool>(false)
    private let reachedEndOfStream = Atomic<Bool>(false)
    private let ended = Atomic<Bool>(false)
    /// Source health as seen by acquisition: 0 healthy, 1 failing (to report), 2 failing
    /// (reported), 3 recovered (to report).
    private let sourceHealth = Atomic<Int>(0)
    private let lastSourceError = Mutex<(any Error)?>(nil)
    /// The newest re-open attempt (acquisition thread writes, processing thread logs it once).
    private let retryState = Mutex<SourceRetryState>(SourceRetryState())
    /// The processing thread's doorbell: `rung` is set by whoever has something for it (samples
    /// in the ring, a consumer change, the end), then `doorbell` is notified; the processing thread
    /// clears `rung` when it wakes and processes everything pending, so rings while it works
    /// cost no extra wake-up.
    private let doorbell = Condition()
    private let rung = Atomic<Bool>(false)
    /// Holds acquisition after `start(holdingDelivery: true)` until `beginDelivery()` or `stop()`
    /// clears `deliveryHeld`.
    private let deliveryGate = Condition()
    private let deliveryHeld = Atomic<Bool>(false)
    /// Notified once `ended` is set.
    private let endSignal = Condition()
    private let state = Mutex<PipelineStartReport?>(nil)
    private let mailbox = ConsumerMailbox()
    private let nextConsumerID = Atomic<UInt64>(1)
    private let endReason = Mutex<PipelineEnd?>(nil)
    private let acquisitionThread: RealtimeThread
    private let processingThread: RealtimeThread

    public convenience init(source: any IMUSource, configuration: PipelineConfiguration, outputs: [any PipelineOutput]) {
        self.init(source: source, configuration: configuration, outputs: outputs, threadStarter: platformThreadStarter)
    }

    /// `threadStarter` is the seam tests use to make `pthread_create` fail.
    package init(source: any IMUSource, configuration: PipelineConfiguration, outputs: [any PipelineOutput],
         threadStarter: @escaping ThreadStarter) {
        self.source = source
        self.configuration = configuration
        self.outputs = outputs
        ring = SampleRing(minimumCapacity: configuration.ringCapacity)
        acquisitionThread = RealtimeThread(name: "em-acquire", starter: threadStarter)
        processingThread = RealtimeThread(name: "em-process", starter: threadStarter)
    }

    /// The effective configuration, once started.
    public var report: PipelineStartReport? { state.withLock { $0 } }

    /// Opens the source and starts both threads. Throws the source's error if it cannot start,
    /// `ThreadStartError` if a thread cannot be created (the source is stopped again and
    /// any thread already started is joined; the pipeline is not running).
    ///
    /// `holdingDelivery: true` opens and configures the source (so the report is known) but reads
    /// no sample until `beginDelivery()`: a caller that attaches consumers after seeing the report
    /// (which streams exist, which sensors) loses nothing of a fast, lossless source.
    @discardableResult
    public func start(holdingDelivery: Bool = false) throws -> PipelineStartReport {
        precondition(!running.load(ordering: .acquiring), "MotionPipeline started twice")
        deliveryHeld.store(holdingDelivery, ordering: .releasing)
        let sourceConfiguration = try source.start(requestedRate: configuration.requestedRate)
        let rate = sourceConfiguration.rate
        var streams: [SensorStream: EffectiveSchedule] = [:]
        let present = source.capabilities.sensors
        for stream in SensorStream.allCases {
            let schedule = present.contains(stream.requiredContents) ? configuration.schedule(for: stream) : .disabled
            streams[stream] = EffectiveSchedule(schedule, sourceRate: rate)
        }
        let motion = EffectiveSchedule(present.contains(.accelerometer) ? configuration.motion : .disabled, sourceRate: rate)
        let report = PipelineStartReport(source: source.capabilities, sourceConfiguration: sourceConfiguration,
                                         streams: streams, motion: motion)
        state.withLock { $0 = report }
        running.store(true, ordering: .releasing)

        do throws(ThreadStartError) {
            switch configuration.filter {
            case .default:
                try startThreads(RobustAttitudeFilter.self, report: report)
            case .complementary:
                try startThreads(ComplementaryFilter.self, report: report)
            }
        } catch {
            // The processing thread (if it started) ends once acquisition is marked finished
            // and the ring is empty; nothing was read, so it is.
            running.store(false, ordering: .releasing)
            acquisitionFinished.store(true, ordering: .releasing)
            ringDoorbell()
            processingThread.join()
            source.stop()
            state.withLock { $0 = nil }
            throw error
        }
        return report
    }

    /// Lets acquisition begin after `start(holdingDelivery: true)`. Idempotent; a no-op otherwise.
    public func beginDelivery() {
        if deliveryHeld.exchange(false, ordering: .acquiringAndReleasing) { deliveryGate.notifyAll() }
    }

    /// Stops acquisition, lets processing drain the ring and flush partial batches, then joins
    /// both threads. Outputs receive `didEnd(.stopped)` (or `.endOfStream` if the recording had
    /// already ended). Idempotent.
    public func stop() {
        running.store(false, ordering: .releasing)
        beginDelivery()
        acquisitionThread.join()
        ringDoorbell()
        processingThread.join()
    }

    /// Blocks until the pipeline has ended (stopped, or a recording ran out), or `timeout`.
    /// Returns whether it ended.
    public func waitUntilEnded(timeout: Duration) -> Bool {
        if ended.load(ordering: .acquiring) { return true }
        return endSignal.wait(untilNanos: MonotonicClock.deadline(after: timeout)) { ended.load(ordering: .acquiring) }
    }

    // MARK: Runtime consumers

    /// Adds a consumer with its own per-stream rates and batching, while the pipeline runs (or
    /// before it starts). It receives batches on the processing thread from the next drain on,
    /// and `pipeline(didEnd:)` when the pipeline ends; if it already has, `didEnd` is called at
    /// once. Requested rates are capped at the source rate, like the static streams.
    @discardableResult
    public func addConsumer(_ output: any PipelineOutput, schedule: ConsumerSchedule) -> PipelineConsumerID {
        let id = PipelineConsumerID(rawValue: nextConsumerID.wrappingAdd(1, ordering: .relaxed).oldValue)
        if mailbox.post(.add(id, output, schedule)) {
            ringDoorbell()
        } else {
            output.pipeline(didEnd: endReason.withLock { $0 } ?? .stopped)
        }
        return id
    }

    /// Changes a consumer's schedule; its partial batches are delivered first.
    public func updateConsumer(_ id: PipelineConsumerID, schedule: ConsumerSchedule) {
        if mailbox.post(.update(id, schedule)) { ringDoorbell() }
    }

    /// Removes a consumer. Takes effect before the processing thread's next drain; a batch being
    /// delivered at the moment of the call may still arrive. The consumer gets no `didEnd`.
    public func removeConsumer(_ id: PipelineConsumerID) {
        if mailbox.post(.remove(id)) { ringDoorbell() }
    }

    /// Replaces the chip-to-board rotations (`PipelineConfiguration.mount`) while running: the
    /// processing thread applies them from the sample after its next wake-up, and fusion starts
    /// over (its state was in the old axes; it converges again as at start-up). `false` when the
    /// pipeline has ended.
    @discardableResult
    public func setMount(_ mount: IMUMount) -> Bool {
        guard mailbox.post(.remount(mount)) else { return false }
        ringDoorbell()
        return true
    }

    /// Whether the pipeline has ended (stopped or end of recording), and why.
    public var end: PipelineEnd? { endReason.withLock { $0 } }

    /// What a stream schedule resolves to on this pipeline's source: after `start`, at the rate
    /// the source runs; before, at the rate it would run for the requested rate.
    public func effectiveSchedule(_ schedule: StreamSchedule) -> EffectiveSchedule {
        EffectiveSchedule(schedule, sourceRate: sourceRate)
    }

    /// The source's output rate in Hz: as running after `start`, as predicted before.
    public var sourceRate: Double {
        report?.sourceConfiguration.rate ?? source.capabilities.effectiveRate(forRequested: configuration.requestedRate)
    }

    /// One past the newest sample number read (`sequenceOffset` included): the `sequenceOffset`
    /// of a pipeline that takes over from this one. Before the first read, `sequenceOffset`.
    public var nextSequence: UInt64 { max(counters.nextSequence.load(ordering: .relaxed), configuration.sequenceOffset) }

    /// Gives the static outputs new stream schedules without reopening the source or resetting
    /// fusion: the processing thread delivers the partial batches of the old schedules, then
    /// batches by the new ones from the next sample (between two drains, like consumer changes).
    /// Returns the updated report; `nil` when the pipeline has not started or has ended.
    @discardableResult
    public func reschedule(accelerometer: StreamSchedule, gyroscope: StreamSchedule, magnetometer: StreamSchedule,
                           motion: StreamSchedule) -> PipelineStartReport? {
        guard var report = self.report else { return nil }
        let rate = report.sourceConfiguration.rate
        let present = report.source.sensors
        for stream in SensorStream.allCases {
            let wanted = switch stream {
            case .accelerometer: accelerometer
            case .gyroscope: gyroscope
            case .magnetometer: magnetometer
            }
            report.streams[stream] = EffectiveSchedule(present.contains(stream.requiredContents) ? wanted : .disabled, sourceRate: rate)
        }
        report.motion = EffectiveSchedule(present.contains(.accelerometer) ? motion : .disabled, sourceRate: rate)
        guard mailbox.post(.rescheduleStatic(report.streams, motion: report.motion)) else { return nil }
        state.withLock { $0 = report }
        ringDoorbell()
        return report
    }

    /// A snapshot of the counters.
    public var statistics: PipelineStatistics {
        PipelineStatistics(
            samplesAcquired: counters.acquired.load(ordering: .relaxed),
            samplesProcessed: counters.processed.load(ordering: .relaxed),
            ringDrops: ring.droppedCount,
            sourceGaps: counters.sequenceGaps.load(ordering: .relaxed),
            sourceErrors: counters.sourceErrors.load(ordering: .relaxed),
            sourceRetries: counters.sourceRetries.load(ordering: .relaxed),
            lastSampleNanos: counters.lastSampleNanos.load(ordering: .relaxed),
            maximumRingDepth: counters.maximumRingDepth.load(ordering: .relaxed),
            batchesDelivered: counters.batchesDelivered.load(ordering: .relaxed))
    }

    // MARK: Acquisition thread

    /// Reads the source until stopped or the recording ends. `samplesArrived` runs after every
    /// ring push, timeout and state change: it rings the processing thread's doorbell, or — with
    /// one thread — processes what is in the ring right here (`inline`).
    private func acquisitionLoop(lossless: Bool, inline: Bool, samplesArrived: () -> Void) {
        let capacity = max(1, configuration.readBatchSize)
        let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var backoff = SourceRetryBackoff(maximum: configuration.sourceRetryMaximumSeconds)
        let sequenceOffset = configuration.sequenceOffset
        var needsStart = false
        loop: while running.load(ordering: .acquiring) {
            if needsStart {
                // The source failed (device unbound, bus error): wait, then re-open it; a failed
                // attempt doubles the wait (capped). The processing thread logs each attempt.
                let delay = backoff.next()
                retryState.withLock { $0.nextDelaySeconds = delay }
                samplesArrived()
                var waited = 0.0
                while waited < delay, running.load(ordering: .acquiring) {
                    usleep(UInt32(min(0.05, delay - waited) * 1e6))
                    waited += 0.05
                    if inline { samplesArrived() }
                }
                guard running.load(ordering: .acquiring) else { break }
                counters.sourceRetries.wrappingAdd(1, ordering: .relaxed)
                do {
                    _ = try source.start(requestedRate: configuration.requestedRate)
                    needsStart = false
                    retryState.withLock { $0.attempt = backoff.attempts; $0.error = nil; $0.nextDelaySeconds = backoff.current }
                } catch {
                    counters.sourceErrors.wrappingAdd(1, ordering: .relaxed)
                    retryState.withLock { $0.attempt = backoff.attempts; $0.error = error; $0.nextDelaySeconds = backoff.current }
                    source.stop()
                }
                samplesArrived()
                continue
            }
            do {
                switch try source.read(into: buffer, timeout: .milliseconds(100)) {
                case .samples(let n):
                    if sequenceOffset != 0 {
                        for i in 0..<n { buffer[i].sequence &+= sequenceOffset }
                    }
                    if sourceHealth.load(ordering: .relaxed) != 0 {
                        sourceHealth.store(3, ordering: .releasing)
                        backoff.reset()
                    }
                    // One ring push and one doorbell per read: a FIFO burst costs the processing
                    // thread one wake-up, not one per sample.
                    if lossless {
                        var done = 0
                        while done < n {
                            let pushed = ring.push(contentsOf: UnsafeBufferPointer(rebasing: buffer[done..<Swift.min(n, done + ring.freeSpace)]))
                            done += pushed
                            if done < n {
                                guard running.load(ordering: .relaxed) else { break loop }
                                samplesArrived()
                                if !inline { usleep(200) }
                            }
                        }
                    } else {
                        ring.push(contentsOf: UnsafeBufferPointer(rebasing: buffer[0..<n]))
                    }
                    counters.acquired.wrappingAdd(UInt64(n), ordering: .relaxed)
                    if n > 0 { counters.nextSequence.store(buffer[n - 1].sequence &+ 1, ordering: .relaxed) }
                    samplesArrived()
                case .timeout:
                    if inline { samplesArrived() }   // consumer changes and health reports still run
                    continue
                case .endOfStream:
                    reachedEndOfStream.store(true, ordering: .releasing)
                    break loop
                }
            } catch {
                // Reported once per failure episode (not per read); retried until it works or we stop.
                counters.sourceErrors.wrappingAdd(1, ordering: .relaxed)
                lastSourceError.withLock { $0 = error }
                retryState.withLock { $0.nextDelaySeconds = backoff.current }   // before the report reads it
                let health = sourceHealth.load(ordering: .relaxed)
                if health == 0 || health == 3 {
                    sourceHealth.store(1, ordering: .releasing)
                }
                source.stop()
                needsStart = true
                samplesArrived()
            }
        }
        source.stop()
        acquisitionFinished.store(true, ordering: .releasing)
        samplesArrived()
    }

    /// Tells the processing thread there is something for it (samples, a change, the end). A ring
    /// while `rung` is still set is already on its way (whoever set it notifies), so only the ring
    /// that sets it takes the condition's mutex.
    private func ringDoorbell() {
        if !rung.exchange(true, ordering: .acquiringAndReleasing) { doorbell.notifyOne() }
    }

    /// Blocks acquisition while delivery is held (`start(holdingDelivery: true)`).
    private func waitForDelivery() {
        deliveryGate.wait(untilNanos: .max) { !deliveryHeld.load(ordering: .acquiring) }
    }

    // MARK: Processing thread

    private func startThreads<F: AttitudeFilter>(_ filter: F.Type, report: PipelineStartReport) throws(ThreadStartError) {
        let lossless = report.sourceConfiguration.lossless
        let makeProcessor: @Sendable () -> MotionProcessor<F> = { [configuration] in
            MotionProcessor<F>(
                configuration: configuration, sourceRate: report.sourceConfiguration.rate,
                schedules: report.streams, motionSchedule: report.motion, sensors: report.source.sensors)
        }
        switch configuration.processingThread {
        case .separate:
            try processingThread.start { [self] in
                var processor = makeProcessor()
                var progress = ProcessingProgress()
                while true {
                    // Wakes when rung, or after 100 ms to look at the source's health anyway.
                    doorbell.wait(untilNanos: MonotonicClock.nowNanos() &+ 100_000_000, sliceNanos: .max) {
                        rung.exchange(false, ordering: .acquiringAndReleasing)
                    }
                    processPending(&processor, &progress)
                    if acquisitionFinished.load(ordering: .acquiring), ring.count == 0 { break }
                }
                finishProcessing(&processor, &progress)
            }
            try acquisitionThread.start { [self] in
                waitForDelivery()
                acquisitionLoop(lossless: lossless, inline: false) { ringDoorbell() }
            }
        case .acquisition:
            try acquisitionThread.start { [self] in
                var processor = makeProcessor()
                var progress = ProcessingProgress()
                waitForDelivery()
                acquisitionLoop(lossless: lossless, inline: true) { processPending(&processor, &progress) }
                processPending(&processor, &progress)
                finishProcessing(&processor, &progress)
            }
        }
    }

    /// One turn of processing: consumer changes, source health, then every sample in the ring
    /// through the processor and the outputs (one `pipelineDidProcessBurst` per turn).
    private func processPending<F: AttitudeFilter>(_ processor: inout MotionProcessor<F>, _ progress: inout ProcessingProgress) {
        let outputs = self.outputs
        if let changes = mailbox.take(seen: &progress.seenGeneration) { processor.apply(changes, outputs: outputs) }
        reportSourceHealth(processor.consumers, loggedAttempt: &progress.loggedAttempt, failedAt: &progress.failedAt)
        let depth = ring.count
        if depth > counters.maximumRingDepth.load(ordering: .relaxed) {
            counters.maximumRingDepth.store(depth, ordering: .relaxed)
        }
        var last: UInt64 = 0
        let n = ring.drain { sample in
            processor.process(sample, outputs: outputs)
            last = sample.timestampNanos
        }
        if n > 0 {
            for o in outputs { o.pipelineDidProcessBurst() }
            for c in processor.consumers { c.output.pipelineDidProcessBurst() }
            counters.processed.wrappingAdd(UInt64(n), ordering: .relaxed)
            counters.lastSampleNanos.store(last, ordering: .relaxed)
            counters.sequenceGaps.store(processor.gaps, ordering: .relaxed)
        }
    }

    /// After acquisition ended and the ring is empty: flush partial batches and tell every output.
    private func finishProcessing<F: AttitudeFilter>(_ processor: inout MotionProcessor<F>, _ progress: inout ProcessingProgress) {
        let outputs = self.outputs
        // A recovery (or failure) acquisition recorded after the last wake-up is still reported.
        reportSourceHealth(processor.consumers, loggedAttempt: &progress.loggedAttempt, failedAt: &progress.failedAt)
        let reason: PipelineEnd = reachedEndOfStream.load(ordering: .acquiring) ? .endOfStream : .stopped
        endReason.withLock { $0 = reason }
        processor.apply(mailbox.close(), outputs: outputs)
        processor.flush(outputs: outputs)
        for o in outputs { o.pipeline(didEnd: reason) }
        for c in processor.consumers { c.output.pipeline(didEnd: reason) }
        ended.store(true, ordering: .releasing)
        endSignal.notifyAll()
    }

    /// Logs and announces source failures and recoveries, and each re-open attempt once. Runs on
    /// the processing thread, so the acquisition thread never logs.
    private func reportSourceHealth(_ consumers: [RuntimeConsumer], loggedAttempt: inout Int, failedAt: inout UInt64) {
        let health = sourceHealth.load(ordering: .acquiring)
        guard health != 0 else { return }                    // the common case: nothing to do, nothing touched
        let name = state.withLock { $0?.source.name } ?? "source"
        switch health {
        case 1:
            sourceHealth.store(2, ordering: .releasing)
            failedAt = MonotonicClock.nowNanos()
            loggedAttempt = 0
            let error = lastSourceError.withLock { $0 }
            let delay = retryState.withLock { $0.nextDelaySeconds }
            log.error("source failed; re-opening it with backoff", ["source": name, "error": "\(error.map { "\($0)" } ?? "unknown")",
                                                                   "first_retry_in_s": "\(delay)", "retry_max_s": "\(configuration.sourceRetryMaximumSeconds)"])
            for o in outputs { o.pipeline(sourceStatusChanged: error) }
            for c in consumers { c.output.pipeline(sourceStatusChanged: error) }
        case 2:
            let r = retryState.withLock { $0 }
            guard r.attempt > loggedAttempt else { break }
            loggedAttempt = r.attempt
            if let e = r.error {
                log.warning("source re-open failed", ["source": name, "attempt": "\(r.attempt)", "error": "\(e)",
                                                      "next_retry_in_s": "\(r.nextDelaySeconds)"])
            } else {
                log.notice("source re-opened; waiting for samples", ["source": name, "attempt": "\(r.attempt)"])
            }
        case 3:
            sourceHealth.store(0, ordering: .releasing)
            if failedAt == 0 {
                // Failed and recovered between two wake-ups: say both, in order.
                let error = lastSourceError.withLock { $0 }
                log.error("source failed", ["source": name, "error": "\(error.map { "\($0)" } ?? "unknown")"])
                for o in outputs { o.pipeline(sourceStatusChanged: error) }
                for c in consumers { c.output.pipeline(sourceStatusChanged: error) }
            }
            let attempts = retryState.withLock { $0.attempt }
            let down = failedAt > 0 ? Double(MonotonicClock.nowNanos() &- failedAt) / 1e9 : 0
            log.notice("source recovered; sampling resumed", ["source": name, "attempts": "\(attempts)",
                                                              "down_s": "\((down * 10).rounded() / 10)"])
            for o in outputs { o.pipeline(sourceStatusChanged: nil) }
            for c in consumers { c.output.pipeline(sourceStatusChanged: nil) }
            failedAt = 0
        default:
            break
        }
    }
}

/// What the processing side remembers between turns.
struct ProcessingProgress {
    /// The consumer mailbox generation last applied.
    var seenGeneration: UInt64 = 0
    /// The re-open attempt last logged.
    var loggedAttempt = 0
    /// Monotonic ns when the current source failure was first reported (0: none).
    var failedAt: UInt64 = 0
}

/// The newest attempt to re-open a failed source.
struct SourceRetryState {
    /// Attempts made in this failure episode.
    var attempt = 0
    /// Why the newest attempt failed; nil when it re-opened the source.
    var error: (any Error)?
    /// Seconds the next attempt waits.
    var nextDelaySeconds = 0.0
}
