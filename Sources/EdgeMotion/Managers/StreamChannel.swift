import Dispatch
import MotionCore
import Sensors
import Synchronization

/// One stream of one manager (accelerometer, gyro, magnetometer or device motion): its update
/// interval, whether its own start was called, and the sink of the current start. Each start is
/// one runtime consumer of the shared pipeline.
final class StreamChannel<Element: BitwiseCopyable & Sendable>: Sendable {
    enum Kind: Sendable {
        case sensor(SensorStream)
        case motion
    }

    let kind: Kind
    let service: MotionService
    private let fromSample: (@Sendable (IMUSample) -> Element)?
    private let fromMotion: (@Sendable (DeviceMotion) -> Element)?

    private struct State {
        var requestedInterval: Double
        var sink: UpdateSink<Element>?
        /// The newest sink, kept after stop so the pull property keeps its last value.
        var lastSink: UpdateSink<Element>?
        var consumer: MotionConsumerID?
        var delivery: DeliveryShape = .pull
        var frame: AttitudeReferenceFrame?
    }

    enum DeliveryShape: Sendable, Equatable {
        case pull
        case each
        case batches(interval: Double)
    }

    private let state: Mutex<State>
    /// Rates above this (Hz) reach a per-value handler in groups: one dispatch per
    /// `1 / dispatchRate` seconds, still one handler call per value.
    let dispatchRate: Double

    init(kind: Kind, service: MotionService, interval: Double, dispatchRate: Double,
         fromSample: (@Sendable (IMUSample) -> Element)?, fromMotion: (@Sendable (DeviceMotion) -> Element)?) {
        self.kind = kind
        self.service = service
        self.dispatchRate = dispatchRate
        self.fromSample = fromSample
        self.fromMotion = fromMotion
        state = Mutex(State(requestedInterval: interval))
    }

    var isAvailable: Bool {
        switch kind {
        case .sensor(let s): service.capabilities.sensors.contains(s.requiredContents)
        case .motion: service.capabilities.sensors.contains(.accelerometer)
        }
    }

    /// Whether this channel's own start was called (and not stopped since).
    var isActive: Bool { state.withLock { $0.sink != nil } }

    /// The newest value of the current (or last) start, `nil` before its first value.
    var latest: Element? { state.withLock { $0.sink ?? $0.lastSink }?.latest.load() }

    /// The newest batch (batched delivery only).
    var latestBatch: [Element]? { state.withLock { $0.sink ?? $0.lastSink }?.latestBatch }

    /// The frame of the running device-motion start, if any.
    var activeFrame: AttitudeReferenceFrame? { state.withLock { $0.sink == nil ? nil : $0.frame } }

    /// The frame of the running start, else of the last one (`nil` if never started): Core
    /// Motion's `attitudeReferenceFrame` keeps the last frame used after a stop.
    var lastFrame: AttitudeReferenceFrame? { state.withLock { $0.frame } }

    /// The update interval in seconds, as delivered: the requested one rounded to a whole
    /// decimation of the source rate and capped at the source's fastest.
    var interval: Double {
        get {
            let requested = state.withLock { $0.requestedInterval }
            return service.effectiveSchedule(StreamSchedule(rate: 1 / requested, publishRate: 1)).interval
        }
        set {
            guard newValue.isFinite, newValue > 0 else { return }
            state.withLock { s in
                s.requestedInterval = newValue
                if let id = s.consumer { service.updateConsumer(id, schedule: schedule(s)) }
            }
        }
    }

    /// The rate of the current requested interval on this source, Hz.
    var effectiveRate: Double {
        let requested = state.withLock { $0.requestedInterval }
        return service.effectiveSchedule(StreamSchedule(rate: 1 / requested, publishRate: 1)).rate
    }

    private func schedule(_ s: State) -> ConsumerSchedule {
        let requestedRate = 1 / s.requestedInterval
        let rate = service.effectiveSchedule(StreamSchedule(rate: requestedRate, publishRate: 1)).rate
        let publishRate: Double
        switch s.delivery {
        case .pull: publishRate = max(rate, 1e-6)
        case .each: publishRate = min(max(rate, 1e-6), dispatchRate)
        case .batches(let interval): publishRate = 1 / interval
        }
        let stream = StreamSchedule(rate: requestedRate, publishRate: publishRate)
        switch kind {
        case .sensor(let sensor): return .only(sensor, stream)
        case .motion: return .motion(stream, frame: s.frame)
        }
    }

    /// Starts (or restarts) the channel. Errors reach `delivery` once: `notAvailable` when the
    /// sensor is missing, `sourceStartFailed` when the source cannot start (both leave the
    /// channel inactive), `warnings` (non-fatal) right after a successful start.
    func start(_ delivery: UpdateDelivery<Element>, shape: DeliveryShape, frame: AttitudeReferenceFrame? = nil,
               needsHeading: Bool = false, warnings: [MotionError] = []) {
        let sink = UpdateSink(delivery: delivery, fromSample: fromSample, fromMotion: fromMotion,
                              needsHeading: needsHeading, keepsBatch: shapeKeepsBatch(shape))
        let available = isAvailable
        state.withLock { s in
            // Replace a running start (also one a concurrent caller made) under the lock.
            if let old = s.sink { old.deactivate() }
            if let id = s.consumer { service.removeConsumer(id) }
            s.sink = nil
            s.consumer = nil
            guard available else {
                sink.deactivateSilently()
                sink.report(MotionError(.notAvailable, detail: "\(service.capabilities.name) has no \(sensorName)"), fatal: true)
                return
            }
            s.delivery = shape
            s.frame = frame
            let schedule = schedule(s)
            do {
                let id = try service.addConsumer(sink, schedule: schedule)
                s.sink = sink
                s.lastSink = sink
                s.consumer = id
                for w in warnings { sink.report(w) }
            } catch {
                sink.deactivateSilently()
                sink.report(MotionError(.sourceStartFailed, detail: "\(error)"), fatal: true)
            }
        }
    }

    /// Stops this channel's updates: no handler call starts after this returns, stream forms
    /// finish. The pull property keeps its last value.
    func stop() {
        let (sink, id) = state.withLock { s -> (UpdateSink<Element>?, MotionConsumerID?) in
            defer { s.sink = nil; s.consumer = nil }
            return (s.sink, s.consumer)
        }
        sink?.deactivate()
        if let id { service.removeConsumer(id) }
    }

    private func shapeKeepsBatch(_ shape: DeliveryShape) -> Bool {
        if case .batches = shape { return true }
        return false
    }

    private var sensorName: String {
        switch kind {
        case .sensor(let s): s.rawValue
        case .motion: "accelerometer (device motion needs one)"
        }
    }
}
