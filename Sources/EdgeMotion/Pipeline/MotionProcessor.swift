import MotionCore

// Note: outputs are iterated by index. `for o in outputs` over an array of existentials
// allocates once per loop in debug builds (measured); indexing does not, in any build.

/// The per-sample work of the processing thread: fusion, decimation and batching into
/// preallocated buffers. A value type generic over the filter so the whole loop specialises;
/// no allocation, locking or logging per sample.
package struct MotionProcessor<Filter: AttitudeFilter> {
    private var estimator: DeviceMotionEstimator<Filter>
    private var accelerometerBuffer: SampleBuffer<IMUSample>
    private var gyroscopeBuffer: SampleBuffer<IMUSample>
    private var magnetometerBuffer: SampleBuffer<IMUSample>
    private var motionBuffer: SampleBuffer<DeviceMotion>
    private var motionSchedule: EffectiveSchedule
    private var motionPhase = 0
    private var lastSequence: UInt64?
    private(set) var gaps: UInt64 = 0
    /// Consumers added at runtime, each with its own decimation and batching. Changed only by
    /// `apply(_:)` between drains; iterated by index per sample.
    private(set) var consumers: [RuntimeConsumer] = []
    private let sourceRate: Double
    private let sensors: IMUSample.Contents
    private let defaultFrame: AttitudeReferenceFrame
    /// Applied to every sample before anything else (`PipelineConfiguration.mount`).
    private var mount: IMUMount
    /// What fusion was built from, to start it over when the mount changes.
    private let fusionConfiguration: PipelineConfiguration

    package init(configuration: PipelineConfiguration, sourceRate: Double, schedules: [SensorStream: EffectiveSchedule],
         motionSchedule: EffectiveSchedule, sensors: IMUSample.Contents = .all) {
        self.sourceRate = sourceRate
        self.sensors = sensors
        let frame = Self.servedFrame(configuration.referenceFrame, sensors: sensors)
        defaultFrame = frame
        mount = configuration.mount
        fusionConfiguration = configuration
        estimator = DeviceMotionEstimator(
            samplePeriod: 1 / sourceRate, referenceFrame: frame,
            declination: configuration.declination, calibration: configuration.calibration.inBoardAxes(mount),
            learnsGyroBias: configuration.learnsGyroBias)
        accelerometerBuffer = SampleBuffer(schedule: schedules[.accelerometer] ?? EffectiveSchedule(.disabled, sourceRate: 0))
        gyroscopeBuffer = SampleBuffer(schedule: schedules[.gyroscope] ?? EffectiveSchedule(.disabled, sourceRate: 0))
        magnetometerBuffer = SampleBuffer(schedule: schedules[.magnetometer] ?? EffectiveSchedule(.disabled, sourceRate: 0))
        self.motionSchedule = motionSchedule
        motionBuffer = SampleBuffer(schedule: motionSchedule)
    }

    /// The frame the static outputs get for the configured one (Core Motion: a frame is served
    /// only when what it needs exists). A north-referenced frame on a source without a
    /// magnetometer has no heading: its attitude is the arbitrary-heading one and says so
    /// (`xArbitraryZVertical`). Without a declination `xTrueNorthZVertical` becomes
    /// `xMagneticNorthZVertical` in the estimator (`DeviceMotionEstimator.effectiveFrame`).
    package static func servedFrame(_ frame: AttitudeReferenceFrame, sensors: IMUSample.Contents) -> AttitudeReferenceFrame {
        let northReferenced = frame == .xMagneticNorthZVertical || frame == .xTrueNorthZVertical
        return northReferenced && !sensors.contains(.magnetometer) ? .xArbitraryZVertical : frame
    }

    /// Runs one sample through fusion and the stream batchers, delivering full batches.
    package mutating func process(_ raw: IMUSample, outputs: [any PipelineOutput]) {
        let sample = mount.apply(raw)
        if let last = lastSequence, sample.sequence > last &+ 1 {
            gaps &+= sample.sequence &- last &- 1
        }
        lastSequence = sample.sequence

        if sample.contents.contains(.accelerometer) {
            estimator.ingest(sample)
        }
        if sample.contents.contains(.accelerometer) {
            accelerometerBuffer.offer(sample) { span, interval in
                for i in outputs.indices { outputs[i].pipeline(didProduce: span, of: .accelerometer, interval: interval) }
            }
        }
        if sample.contents.contains(.gyroscope) {
            gyroscopeBuffer.offer(sample) { span, interval in
                for i in outputs.indices { outputs[i].pipeline(didProduce: span, of: .gyroscope, interval: interval) }
            }
        }
        if sample.contents.contains(.magnetometer) {
            magnetometerBuffer.offer(sample) { span, interval in
                for i in outputs.indices { outputs[i].pipeline(didProduce: span, of: .magnetometer, interval: interval) }
            }
        }
        if motionSchedule.enabled, sample.contents.contains(.accelerometer) {
            if motionPhase == 0 {
                let motion = estimator.deviceMotion(for: sample)
                motionBuffer.append(motion) { span, interval in
                    for i in outputs.indices { outputs[i].pipeline(didProduce: span, interval: interval) }
                }
            }
            motionPhase += 1
            if motionPhase >= motionSchedule.decimation { motionPhase = 0 }
        }
        if !consumers.isEmpty { offerToConsumers(sample) }
    }

    /// The runtime consumers' share of `process`: same work as for the static outputs, with
    /// each consumer's own buffers, phases and reference frame.
    /// The consumer's `output` (an existential: a retain and release per copy) is read only
    /// inside the delivery closures, i.e. once per batch, not once per sample.
    private mutating func offerToConsumers(_ sample: IMUSample) {
        for i in consumers.indices {
            let c = consumers[i]
            if sample.contents.contains(.accelerometer) {
                c.accelerometer.offer(sample) { span, interval in c.output.pipeline(didProduce: span, of: .accelerometer, interval: interval) }
            }
            if sample.contents.contains(.gyroscope) {
                c.gyroscope.offer(sample) { span, interval in c.output.pipeline(didProduce: span, of: .gyroscope, interval: interval) }
            }
            if sample.contents.contains(.magnetometer) {
                c.magnetometer.offer(sample) { span, interval in c.output.pipeline(didProduce: span, of: .magnetometer, interval: interval) }
            }
            if c.motionSchedule.enabled, sample.contents.contains(.accelerometer) {
                if c.motionPhase == 0 {
                    let frame = estimator.referenceFrame
                    estimator.referenceFrame = c.referenceFrame
                    let motion = estimator.deviceMotion(for: sample)
                    estimator.referenceFrame = frame
                    c.motion.append(motion) { span, interval in c.output.pipeline(didProduce: span, interval: interval) }
                }
                c.motionPhase += 1
                if c.motionPhase >= c.motionSchedule.decimation { c.motionPhase = 0 }
            }
        }
    }

    /// Applies consumer changes (between drains: this allocates the new consumers' buffers).
    /// A consumer whose schedule changes first receives its partially filled batches; so do the
    /// static `outputs` when their schedules change.
    package mutating func apply(_ changes: [ConsumerChange], outputs: [any PipelineOutput] = []) {
        for change in changes {
            switch change {
            case .rescheduleStatic(let streams, let motion):
                flush(outputs: outputs, consumers: false)
                accelerometerBuffer = SampleBuffer(schedule: streams[.accelerometer] ?? EffectiveSchedule(.disabled, sourceRate: 0))
                gyroscopeBuffer = SampleBuffer(schedule: streams[.gyroscope] ?? EffectiveSchedule(.disabled, sourceRate: 0))
                magnetometerBuffer = SampleBuffer(schedule: streams[.magnetometer] ?? EffectiveSchedule(.disabled, sourceRate: 0))
                motionSchedule = motion
                motionBuffer = SampleBuffer(schedule: motion)
                motionPhase = 0
            case .add(let id, let output, let schedule):
                consumers.removeAll { $0.id == id }
                consumers.append(RuntimeConsumer(id: id, output: output, schedule: schedule, sourceRate: sourceRate,
                                                 sensors: sensors, defaultFrame: defaultFrame))
            case .update(let id, let schedule):
                guard let k = consumers.firstIndex(where: { $0.id == id }) else { continue }
                let old = consumers[k]
                old.flush()
                consumers[k] = RuntimeConsumer(id: id, output: old.output, schedule: schedule, sourceRate: sourceRate,
                                               sensors: sensors, defaultFrame: defaultFrame)
            case .remove(let id):
                consumers.removeAll { $0.id == id }
            case .remount(let m):
                // The filter's state (attitude, bias, heading reference) is in the old axes:
                // fusion starts over in the new ones, as at start-up. The calibration is kept in
                // chip axes: expressed anew in the new board axes it stays right.
                mount = m
                let c = fusionConfiguration
                estimator = DeviceMotionEstimator(
                    samplePeriod: 1 / sourceRate, referenceFrame: defaultFrame, declination: c.declination,
                    calibration: c.calibration.inBoardAxes(m), learnsGyroBias: c.learnsGyroBias)
            }
        }
    }

    /// Delivers every partially filled batch (at shutdown; the static ones also before a reschedule).
    mutating func flush(outputs: [any PipelineOutput], consumers flushConsumers: Bool = true) {
        for (stream, buffer) in [(SensorStream.accelerometer, accelerometerBuffer),
                                 (.gyroscope, gyroscopeBuffer), (.magnetometer, magnetometerBuffer)] {
            buffer.flush { span, interval in
                for i in outputs.indices { outputs[i].pipeline(didProduce: span, of: stream, interval: interval) }
            }
        }
        motionBuffer.flush { span, interval in
            for i in outputs.indices { outputs[i].pipeline(didProduce: span, interval: interval) }
        }
        if flushConsumers { for c in consumers { c.flush() } }
    }
}

/// A fixed-size batch of one stream, with its own decimation phase. Storage is allocated once;
/// used only by the processing thread.
final class SampleBuffer<Element: BitwiseCopyable> {
    private let storage: UnsafeMutableBufferPointer<Element>
    private var count = 0
    private var phase = 0
    private let schedule: EffectiveSchedule

    init(schedule: EffectiveSchedule) {
        self.schedule = schedule
        storage = .allocate(capacity: max(1, schedule.batchSize))
    }

    deinit { storage.deallocate() }

    /// Offers a source-rate sample; keeps one in `decimation`.
    func offer(_ element: Element, deliver: (Span<Element>, Double) -> Void) {
        guard schedule.enabled else { return }
        if phase == 0 { append(element, deliver: deliver) }
        phase += 1
        if phase >= schedule.decimation { phase = 0 }
    }

    /// Appends an already-decimated element.
    func append(_ element: Element, deliver: (Span<Element>, Double) -> Void) {
        guard schedule.enabled else { return }
        storage[count] = element
        count += 1
        if count == schedule.batchSize { flush(deliver: deliver) }
    }

    func flush(deliver: (Span<Element>, Double) -> Void) {
        guard count > 0 else { return }
        let full = UnsafeBufferPointer(rebasing: storage[0..<count])
        deliver(full.span, schedule.interval)
        count = 0
    }
}
