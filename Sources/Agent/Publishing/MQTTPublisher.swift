#if canImport(Glibc)
import Glibc
#endif
import EdgeMotion
import Logging
import Messaging
import MotionCore
import Synchronization

/// The agent's `PipelineOutput`: encodes each batch into a preallocated JSON buffer and hands a copy
/// to the `Outbox` (one allocation per message, none per sample). Runs on the pipeline's processing
/// thread only, so its buffer and sequence numbers need no lock; it never blocks on the network or
/// the disk (the outbox's own thread talks to libmosquitto).
///
/// The publisher outlives pipelines: after a reload restarts the pipeline, `seq` continues, so
/// subscribers keep detecting loss by sequence number.
final class MQTTPublisher: PipelineOutput, @unchecked Sendable {
    struct StreamRoute: Equatable {
        var topic: String
        var qos: Int
        var retain: Bool
        /// Payload encoding (`streams.<name>.format`); `deviceID` tags influx lines.
        var format: PayloadFormat = .json
        var deviceID: String = ""
        /// Axes of the motion stream's attitude and vectors (`fusion.output_frame`).
        var outputFrame: OutputFrame = .coreMotion
    }

    private let outbox: Outbox
    /// The monotonic → UTC mapping of the payloads; replaced by `remapClockIfStepped` (two
    /// atomics, read once per batch: a torn read only mixes an old floor with a new offset).
    private let clockOffset = Atomic<Int64>(0)
    private let clockFloor = Atomic<Int64>(.min)
    private var clock: WallClockMapping {
        WallClockMapping(offsetNanos: clockOffset.load(ordering: .relaxed), floorUTCNanos: clockFloor.load(ordering: .relaxed))
    }
    /// Outbox handles, per stream: accelerometer, gyroscope, magnetometer, motion.
    private var handles: [Int] = []
    private var routes: [StreamRoute] = []
    private var writer = JSONWriter(capacity: 1 << 16)
    private var lines = LineProtocolWriter(capacity: 1 << 16)
    /// Measurement and tags of each stream's influx lines (empty for JSON streams).
    private var influxPrefixes: [[UInt8]] = []
    private var sequences: [UInt64] = [0, 0, 0, 0]
    /// A batch went to the outbox since its last wake-up (processing thread only).
    private var queuedSinceWake = false
    private let endReason = Mutex<PipelineEnd?>(nil)
    private let sourceError = Mutex<(failing: Bool, error: String?, changed: Bool)>((false, nil, false))
    /// Source failures and recoveries not yet announced on `events/status` (oldest first, bounded).
    private let sourceTransitions = Mutex<[SourceTransition]>([])
    /// Lossless source (recording replayed as fast as possible): wait for outbox room instead of
    /// dropping.
    private let lossless = Atomic<Bool>(false)

    static let streamNames = ["accelerometer", "gyroscope", "magnetometer", "motion"]

    init(outbox: Outbox, routes: [StreamRoute], clock: WallClockMapping) {
        self.outbox = outbox
        clockOffset.store(clock.offsetNanos, ordering: .relaxed)
        clockFloor.store(clock.floorUTCNanos, ordering: .relaxed)
        setRoutes(routes)
    }

    /// Checks the realtime clock against the monotonic one (`realtime`/`monotonic`: a paired
    /// reading, injected by tests) and, after a step larger than `thresholdNanos`, maps UTC anew
    /// from then on without reordering samples (`WallClockMapping.remapped`). Returns the step.
    func remapClockIfStepped(realtimeNanos: UInt64 = MonotonicClock.realtimeNanos(),
                             monotonicNanos: UInt64 = MonotonicClock.nowNanos(),
                             thresholdNanos: Int64 = 1_000_000_000) -> WallClockMapping.Step? {
        guard let step = clock.remapped(realtimeNanos: realtimeNanos, monotonicNanos: monotonicNanos, thresholdNanos: thresholdNanos) else { return nil }
        clockFloor.store(step.mapping.floorUTCNanos, ordering: .relaxed)
        clockOffset.store(step.mapping.offsetNanos, ordering: .relaxed)
        return step
    }

    /// The mapping in use (tests).
    var currentClock: WallClockMapping { clock }

    /// Replaces the routes (topics, QoS). Call only while no pipeline is running.
    func setRoutes(_ routes: [StreamRoute]) {
        precondition(routes.count == 4, "one route per stream: accelerometer, gyroscope, magnetometer, motion")
        self.routes = routes
        influxPrefixes = routes.enumerated().map { k, r in
            guard r.format == .influx else { return [] }
            return k < 3 ? InfluxLineEncoder.sensorPrefix(deviceID: r.deviceID, stream: SensorStream.allCases[k])
                         : InfluxLineEncoder.motionPrefix(deviceID: r.deviceID)
        }
        handles = zip(routes, MQTTPublisher.streamNames).map { outbox.registerStream(topic: $0.topic, name: $1) }
    }

    /// Prepares for a new pipeline run (after a reload).
    func reset(lossless: Bool) {
        endReason.withLock { $0 = nil }
        self.lossless.store(lossless, ordering: .relaxed)
    }

    static func index(of stream: SensorStream) -> Int {
        switch stream {
        case .accelerometer: 0
        case .gyroscope: 1
        case .magnetometer: 2
        }
    }

    func pipeline(didProduce samples: Span<IMUSample>, of stream: SensorStream, interval: Double) {
        let k = Self.index(of: stream)
        if routes[k].format == .influx {
            InfluxLineEncoder.encode(samples, stream: stream, prefix: influxPrefixes[k], clock: clock, into: &lines)
            sequences[k] &+= 1
            return send(route: k)
        }
        SensorBatchEncoder.encode(samples, stream: stream, sequence: sequences[k], interval: interval,
                                  clock: clock, into: &writer)
        sequences[k] &+= 1
        send(route: k)
    }

    func pipeline(didProduce motion: Span<DeviceMotion>, interval: Double) {
        if routes[3].format == .influx {
            InfluxLineEncoder.encode(motion, prefix: influxPrefixes[3], clock: clock, frame: routes[3].outputFrame, into: &lines)
            sequences[3] &+= 1
            return send(route: 3)
        }
        MotionBatchEncoder.encode(motion, sequence: sequences[3], interval: interval, clock: clock,
                                  frame: routes[3].outputFrame, into: &writer)
        sequences[3] &+= 1
        send(route: 3)
    }

    func pipeline(sourceStatusChanged error: (any Error)?) {
        let text = error.map { "\($0)" }
        sourceError.withLock { $0 = (error != nil, text, true) }
        let transition = SourceTransition(error: text, realtimeNanos: MonotonicClock.realtimeNanos())
        sourceTransitions.withLock { q in
            if q.count >= 16 { q.removeFirst() }
            q.append(transition)
        }
    }

    /// The source failures (`error` set) and recoveries since the last call, oldest first.
    func takeSourceTransitions() -> [SourceTransition] {
        sourceTransitions.withLock { q in defer { q.removeAll() }; return q }
    }

    func pipeline(didEnd reason: PipelineEnd) {
        pipelineDidProcessBurst()
        endReason.withLock { $0 = reason }
    }

    /// One outbox wake-up per burst of samples, not one per batch (four streams at 100 batches/s
    /// each would otherwise wake the outbox thread 400 times a second).
    func pipelineDidProcessBurst() {
        if queuedSinceWake {
            queuedSinceWake = false
            outbox.wake()
        }
    }

    /// Why the pipeline ended, once it has.
    var ended: PipelineEnd? { endReason.withLock { $0 } }

    /// The source's health as last reported, and whether it changed since the last call.
    func takeSourceStatus() -> (failing: Bool, error: String?, changed: Bool) {
        sourceError.withLock { s in
            defer { s.changed = false }
            return s
        }
    }

    private func send(route k: Int) {
        let route = routes[k]
        let handle = handles[k]
        let wait = lossless.load(ordering: .relaxed)
        let enqueue = { (bytes: UnsafeRawBufferPointer) in
            self.outbox.enqueue(stream: handle, payload: bytes, qos: route.qos, retain: route.retain, waitForRoom: wait,
                                wake: false)
        }
        queuedSinceWake = true
        if route.format == .influx { lines.withUnsafeBytes(enqueue) } else { writer.withUnsafeBytes(enqueue) }
    }
}

/// A counter written by one thread and read by others.
final class RelaxedCounter: Sendable {
    private let storage = Atomic<UInt64>(0)
    func increment() { storage.wrappingAdd(1, ordering: .relaxed) }
    var value: UInt64 { storage.load(ordering: .relaxed) }
}
