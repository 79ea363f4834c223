import Dispatch
import MotionCore
import Synchronization

/// The `PipelineOutput` behind one started stream of a manager (one `start…Updates` call).
///
/// On the processing thread it stores the newest value (lock-free, no allocation) and, when the
/// caller asked for pushes, copies the batch into one array and dispatches one block to the
/// caller's queue: **handler delivery allocates once per batch** (the array and the block),
/// never per source sample. Pull-only streams allocate nothing.
///
/// After `deactivate()` (the caller's `stop…Updates()`), blocks already queued see the flag and
/// call nothing, so no handler runs after stop returns on the handler's own queue.
final class UpdateSink<Element: BitwiseCopyable & Sendable>: PipelineOutput, @unchecked Sendable {
    let latest = LatestValue<Element>()
    private let latestBatchStorage = Mutex<[Element]?>(nil)
    private let active = Atomic<Bool>(true)
    private let movementReported = Atomic<Bool>(false)
    private let delivery: UpdateDelivery<Element>
    /// Where stream continuations are fed (keeps `yield` off the processing thread).
    private let streamQueue: DispatchQueue?
    private let fromSample: (@Sendable (IMUSample) -> Element)?
    private let fromMotion: (@Sendable (DeviceMotion) -> Element)?
    private let reported = Mutex<Set<MotionError.Code>>([])
    /// Device motion in a north-referenced frame: a missing heading means the magnetometer
    /// needs movement (`deviceRequiresMovement`, once).
    private let needsHeading: Bool
    private let keepsBatch: Bool

    init(delivery: UpdateDelivery<Element>, fromSample: (@Sendable (IMUSample) -> Element)?,
         fromMotion: (@Sendable (DeviceMotion) -> Element)?, needsHeading: Bool = false, keepsBatch: Bool = false) {
        self.delivery = delivery
        self.fromSample = fromSample
        self.fromMotion = fromMotion
        self.needsHeading = needsHeading
        self.keepsBatch = keepsBatch
        switch delivery {
        case .stream, .batchStream: streamQueue = DispatchQueue(label: "edgemotion.updates")
        default: streamQueue = nil
        }
    }

    var isActive: Bool { active.load(ordering: .acquiring) }

    /// The newest complete batch (for `BatchedSensorManager`'s pull properties).
    var latestBatch: [Element]? { latestBatchStorage.withLock { $0 } }

    // MARK: PipelineOutput (processing thread)

    func pipeline(didProduce samples: Span<IMUSample>, of stream: SensorStream, interval: Double) {
        guard let convert = fromSample, samples.count > 0, isActive else { return }
        latest.store(convert(samples[samples.count - 1]))
        guard delivery.pushes || keepsBatch else { return }
        var batch: [Element] = []
        batch.reserveCapacity(samples.count)
        for i in samples.indices { batch.append(convert(samples[i])) }
        deliver(batch)
    }

    func pipeline(didProduce motion: Span<DeviceMotion>, interval: Double) {
        guard let convert = fromMotion, motion.count > 0, isActive else { return }
        if needsHeading, motion[motion.count - 1].heading < 0, !movementReported.load(ordering: .relaxed) {
            movementReported.store(true, ordering: .relaxed)
            report(MotionError(.deviceRequiresMovement,
                               detail: "no heading yet: the magnetometer needs the device moved (figure-eight) before north is known"))
        }
        latest.store(convert(motion[motion.count - 1]))
        guard delivery.pushes || keepsBatch else { return }
        var batch: [Element] = []
        batch.reserveCapacity(motion.count)
        for i in motion.indices { batch.append(convert(motion[i])) }
        deliver(batch)
    }

    func pipeline(sourceStatusChanged error: (any Error)?) {
        if let error {
            report(MotionError(.sourceFailed, detail: "\(error); retrying"))
        } else {
            _ = reported.withLock { $0.remove(.sourceFailed) }
        }
    }

    func pipeline(didEnd reason: PipelineEnd) {
        finishStream(throwing: nil)
    }

    // MARK: Delivery

    private func deliver(_ batch: [Element]) {
        if keepsBatch { latestBatchStorage.withLock { $0 = batch } }
        switch delivery {
        case .pull:
            break
        case .each(let queue, let handler):
            queue.async { [self] in
                for element in batch {
                    guard isActive else { return }
                    handler(element, nil)
                }
            }
        case .batches(let queue, let handler):
            queue.async { [self] in
                guard isActive else { return }
                handler(batch, nil)
            }
        case .stream(let continuation):
            streamQueue?.async { [self] in
                guard isActive else { return }
                for element in batch { continuation.yield(element) }
            }
        case .batchStream(let continuation):
            streamQueue?.async { [self] in
                guard isActive else { return }
                continuation.yield(batch)
            }
        }
    }

    /// Delivers `error` to the caller once per code (a source failure again after a recovery).
    /// Handlers get `(nil, error)`; a `fatal` error (the stream could not start) ends a stream
    /// form by throwing it, other errors are not seen by stream forms. `fatal` errors are
    /// delivered even though the sink is no longer active.
    func report(_ error: MotionError, fatal: Bool = false) {
        let first = reported.withLock { $0.insert(error.code).inserted }
        guard first else { return }
        switch delivery {
        case .pull:
            break
        case .each(let queue, let handler):
            queue.async { [self] in if fatal || isActive { handler(nil, error) } }
        case .batches(let queue, let handler):
            queue.async { [self] in if fatal || isActive { handler([], error) } }
        case .stream, .batchStream:
            if fatal { finishStream(throwing: error) }
        }
    }

    /// Stops all further deliveries and ends a stream form (`stop…Updates()`).
    func deactivate() {
        guard active.exchange(false, ordering: .acquiringAndReleasing) else { return }
        finishStream(throwing: nil)
    }

    /// Marks the sink inactive without ending a stream form (a fatal error ends it instead).
    func deactivateSilently() {
        active.store(false, ordering: .releasing)
    }

    private func finishStream(throwing error: MotionError?) {
        switch delivery {
        case .stream(let continuation):
            // After queued yields, so nothing is lost before the end.
            streamQueue?.async { continuation.finish(throwing: error) }
        case .batchStream(let continuation):
            streamQueue?.async { continuation.finish(throwing: error) }
        default:
            break
        }
    }
}
