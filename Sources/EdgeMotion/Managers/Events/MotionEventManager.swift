import Dispatch
import MotionCore
import Sensors
import Synchronization

/// Motion events in the manner of Core Motion's managers: taps, shocks, free falls, motion and
/// stationary, tilt thresholds, tamper, falls and vibration, from the source's shared pipeline.
///
/// - push: `startEventUpdates(to:withHandler:)` (and state snapshots with `stateHandler`);
/// - async sequence: `eventUpdates()`;
/// - pull: `state` (the newest `MotionEventState`).
///
/// Commands — `setLevel()`, `armTamper()`, `disarmTamper()` — take effect at the next batch.
/// Times are the sample clock (s, CLOCK_MONOTONIC). The detectors run at the source rate on
/// the accelerometer stream; see docs/events.md.
public final class MotionEventManager: Sendable {
    public let service: MotionService
    public let configuration: MotionEventConfiguration
    private let sink: MotionEventSink
    private let consumer = Mutex<MotionConsumerID?>(nil)
    private let continuation = Mutex<AsyncStream<MotionEvent>.Continuation?>(nil)

    /// `zero`: a persisted zero pose (up-vector, sensor frame) to start from; `thresholdStates`:
    /// the thresholds' last states (restored without events).
    public init(service: MotionService, configuration: MotionEventConfiguration = MotionEventConfiguration(),
                zero: Vector3? = nil, thresholdStates: [Bool] = []) {
        self.service = service
        self.configuration = configuration
        sink = MotionEventSink(configuration: configuration, zero: zero, thresholdStates: thresholdStates)
    }

    /// Whether the source can feed the detectors (it has an accelerometer).
    public var isAvailable: Bool { service.capabilities.sensors.contains(.accelerometer) }

    /// The newest state snapshot, `nil` before the first vibration window has ended.
    public var state: MotionEventState? { sink.latest.load() }

    /// Calls `handler` on `queue` for every event, `stateHandler` once per vibration window, and
    /// `zeroHandler` after `setLevel()` with the new zero pose (persist it), `spectrumHandler`
    /// with each vibration spectrum when `configuration.vibration.spectrum.enabled`. Throws
    /// `MotionError` when there is no accelerometer or the source cannot start.
    public func startEventUpdates(to queue: DispatchQueue, withHandler handler: @escaping @Sendable (MotionEvent) -> Void,
                                  stateHandler: (@Sendable (MotionEventState) -> Void)? = nil,
                                  zeroHandler: (@Sendable (Vector3) -> Void)? = nil,
                                  spectrumHandler: (@Sendable (VibrationSpectrum) -> Void)? = nil) throws(MotionError) {
        guard isAvailable else {
            throw MotionError(.notAvailable, detail: "\(service.capabilities.name) has no accelerometer")
        }
        sink.handlers.withLock {
            $0 = .init(queue: queue, event: handler, state: stateHandler, zeroChanged: zeroHandler, spectrum: spectrumHandler)
        }
        try consumer.withLock { (id: inout MotionConsumerID?) throws(MotionError) in
            guard id == nil else { return }
            do {
                // Every source sample (the rate is capped at the source's), 20 batches a second.
                id = try service.addConsumer(sink, schedule: .only(.accelerometer, StreamSchedule(rate: 1e6, publishRate: 20)))
            } catch {
                throw MotionError(.sourceStartFailed, detail: "\(error)")
            }
        }
    }

    /// Events as an `AsyncSequence`; finishes on `stopEventUpdates()`.
    public func eventUpdates() throws(MotionError) -> AsyncStream<MotionEvent> {
        let (stream, c) = AsyncStream<MotionEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
        try startEventUpdates(to: DispatchQueue(label: "edgemotion.events.updates")) { c.yield($0) }
        continuation.withLock { $0 = c }
        return stream
    }

    public func stopEventUpdates() {
        if let id = consumer.withLock({ id -> MotionConsumerID? in defer { id = nil }; return id }) {
            service.removeConsumer(id)
        }
        sink.handlers.withLock { $0 = nil }
        continuation.withLock { c in c?.finish(); c = nil }
    }

    /// "Set level": the current pose becomes the zero of tilt, roll and pitch.
    public func setLevel() { sink.commands.bitwiseOr(MotionEventSink.commandZero, ordering: .releasing) }

    /// Sets the zero pose to `up` (sensor frame), e.g. one persisted earlier.
    public func setZero(_ up: Vector3) {
        sink.restoredZero.withLock { $0 = up }
        sink.commands.bitwiseOr(MotionEventSink.commandRestoreZero, ordering: .releasing)
    }

    /// Arms tamper detection at the current pose: motion or a tilt change is a `tamper` event.
    public func armTamper() { sink.commands.bitwiseOr(MotionEventSink.commandArm, ordering: .releasing) }
    public func disarmTamper() { sink.commands.bitwiseOr(MotionEventSink.commandDisarm, ordering: .releasing) }
}
