import Dispatch
import MotionCore
import Synchronization

/// The motion-event manager's pipeline consumer: runs `MotionEventDetectors` on every
/// accelerometer sample (at the source rate) on the processing thread. Per sample nothing is
/// allocated; an event (rare), a state snapshot (once per vibration window) and, when enabled,
/// a vibration spectrum (once per `vibration.spectrum.interval`) are handed to the client's queue.
///
/// Commands (set level, tamper arm/disarm) arrive from any thread as bits in an atomic word and
/// are applied at the start of the next batch, so the per-sample path takes no lock.
final class MotionEventSink: PipelineOutput, @unchecked Sendable {
    // @unchecked: `detectors`, `spectrum` (a class owning its buffers) and `pendingZero`'s use
    // are touched only on the processing thread (the pipeline calls an output from that one thread); everything shared across
    // threads is an `Atomic`, a `Mutex` or a `LatestValue`.
    struct Handlers: Sendable {
        var queue: DispatchQueue
        var event: (@Sendable (MotionEvent) -> Void)?
        var state: (@Sendable (MotionEventState) -> Void)?
        /// Called after "set level" with the new zero up-vector (to persist it).
        var zeroChanged: (@Sendable (Vector3) -> Void)?
        /// Called with each vibration spectrum (`vibration.spectrum.enabled`, every `interval` s).
        var spectrum: (@Sendable (VibrationSpectrum) -> Void)? = nil
    }

    static let commandZero: UInt32 = 1, commandArm: UInt32 = 2, commandDisarm: UInt32 = 4, commandRestoreZero: UInt32 = 8

    let configuration: MotionEventConfiguration
    let handlers: Mutex<Handlers?>
    let latest = LatestValue<MotionEventState>()
    let commands = Atomic<UInt32>(0)
    let restoredZero = Mutex<Vector3?>(nil)
    private var detectors: MotionEventDetectors?
    /// The optional spectrum; its ring is filled per sample, its transform runs at the publish rate.
    private var spectrum: VibrationSpectrumAnalyzer?
    private var restoredStates: [Bool]

    init(configuration: MotionEventConfiguration, zero: Vector3?, thresholdStates: [Bool]) {
        self.configuration = configuration
        handlers = Mutex(nil)
        restoredStates = thresholdStates
        if let zero {
            restoredZero.withLock { $0 = zero }
            commands.bitwiseOr(Self.commandRestoreZero, ordering: .releasing)
        }
    }

    func pipeline(didProduce samples: Span<IMUSample>, of stream: SensorStream, interval: Double) {
        guard stream == .accelerometer, samples.count > 0, interval > 0 else { return }
        if detectors == nil {
            var d = MotionEventDetectors(configuration: configuration, sampleRate: 1 / interval)
            d.restoreThresholds(restoredStates)
            detectors = d
            if configuration.vibration.spectrum.enabled {
                spectrum = VibrationSpectrumAnalyzer(configuration: configuration.vibration.spectrum, sampleRate: 1 / interval)
            }
        }
        applyCommands()
        let h = handlers.withLock { $0 }
        for i in samples.indices {
            let s = samples[i]
            let gyro: Vector3? = s.contents.contains(.gyroscope) ? s.rotationRate : nil
            let windowEnded = detectors!.update(time: s.timestamp, specificForce: s.specificForce, rotationRate: gyro,
                                                        chipFlags: s.flags.intersection(IMUSample.Flags.chipEvents.union(.chipFaceMask))) { e in
                if let h, let handler = h.event { h.queue.async { handler(e) } }
            }
            if let sp = spectrum, sp.add(s.specificForce, time: s.timestamp) {
                // Once per `interval` s: the transform and the result's arrays, off the per-sample path.
                let result = sp.compute(time: s.timestamp)
                if let h, let handler = h.spectrum { h.queue.async { handler(result) } }
            }
            if windowEnded {
                let state = snapshot(time: s.timestamp)
                latest.store(state)
                if let h, let handler = h.state { h.queue.async { handler(state) } }
            }
        }
    }

    private func applyCommands() {
        let bits = commands.exchange(0, ordering: .acquiring)
        guard bits != 0 else { return }
        if bits & Self.commandRestoreZero != 0, let z = restoredZero.withLock({ $0 }) { detectors!.setZero(z) }
        if bits & Self.commandZero != 0 {
            let z = detectors!.setZero()
            if let h = handlers.withLock({ $0 }), let handler = h.zeroChanged { h.queue.async { handler(z) } }
        }
        if bits & Self.commandDisarm != 0 { detectors!.disarmTamper() }
        if bits & Self.commandArm != 0 { detectors!.armTamper() }
    }

    private func snapshot(time: Double) -> MotionEventState {
        let d = detectors!
        var bits: UInt64 = 0
        var count = 0
        d.thresholdStates { i, on in
            count += 1
            if on, i < 64 { bits |= 1 << UInt64(i) }
        }
        return MotionEventState(time: time, tilt: d.tilt.tilt, roll: d.tilt.roll, pitch: d.tilt.pitch, up: d.tilt.up,
                                zero: d.tilt.zero, moving: d.motion.isMoving, stationaryFor: d.motion.stationaryFor(at: time),
                                vibration: d.vibration.latest, thresholdBits: bits, thresholdCount: count,
                                tamperArmed: d.tamper.isArmed)
    }
}
