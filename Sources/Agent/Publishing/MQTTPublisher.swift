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
/// thread only, so its buffer and sequence numbers need no lock; it never blocks on the disk (the
/// outbox's thread writes the spool). After each burst the processing thread itself sends what it
/// queued (`Outbox.wake()`, through libmosquitto, without the outbox lock); the outbox's thread
/// sends when it could not. Source health and the pipeline's end are not relayed here: see
/// `SourceHealthReport` and `MotionPipeline.end`.
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
    /// What the publisher keeps per stream (index: accelerometer, gyroscope, magnetometer, motion).
    private struct Stream {
        var route: StreamRoute
        /// The outbox's handle of the route's topic.
        var handle: Int
        /// Measurement and tags of the stream's influx lines (empty for JSON).
        var influxPrefix: [UInt8]
        /// The next batch's `seq`; kept across `setRoutes` (a reload), so `seq` continues.
        var sequence: UInt64
    }
    private var streams: [Stream] = []
    private var writer = JSONWriter(capacity: 1 << 16)
    private var lines = LineProtocolWriter(capacity: 1 << 16)
    /// A batch went to the outbox since its last wake-up (processing thread only).
    private var queuedSinceWake = false
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
        streams = routes.enumerated().map { k, r in
            let prefix: [UInt8] = r.format != .influx ? []
                : k < 3 ? InfluxLineEncoder.sensorPrefix(deviceID: r.deviceID, stream: SensorStream.allCases[k])
                        : InfluxLineEncoder.motionPrefix(deviceID: r.deviceID)
            return Stream(route: r, handle: outbox.registerStream(topic: r.topic, name: MQTTPublisher.streamNames[k]),
                          influxPrefix: prefix, sequence: streams.isEmpty ? 0 : streams[k].sequence)
        }
    }

    /// Prepares for a new pipeline run (after a reload): wait for outbox room (`lossless`, a
    /// replay as fast as possible) or drop.
    func reset(lossless: Bool) {
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
        if streams[k].route.format == .influx {
            InfluxLineEncoder.encode(samples, stream: stream, prefix: streams[k].influxPrefix, clock: clock, into: &lines)
            streams[k].sequence &+= 1
            return send(route: k)
        }
        SensorBatchEncoder.encode(samples, stream: stream, sequence: streams[k].sequence, interval: interval,
                                  clock: clock, into: &writer)
        streams[k].sequence &+= 1
        send(route: k)
    }

    func pipeline(didProduce motion: Span<DeviceMotion>, interval: Double) {
        if streams[3].route.format == .influx {
            InfluxLineEncoder.encode(motion, prefix: streams[3].influxPrefix, clock: clock, frame: streams[3].route.outputFrame, into: &lines)
            streams[3].sequence &+= 1
            return send(route: 3)
        }
        MotionBatchEncoder.encode(motion, sequence: streams[3].sequence, interval: interval, clock: clock,
                                  frame: streams[3].route.outputFrame, into: &writer)
        streams[3].sequence &+= 1
        send(route: 3)
    }

    /// The last batches of an ended pipeline go out with one wake-up. (Why it ended is the
    /// pipeline's own `end`; the source's health goes to `SourceHealthReport`.)
    func pipeline(didEnd reason: PipelineEnd) {
        pipelineDidProcessBurst()
    }

    /// One outbox wake-up per burst of samples, not one per batch (four streams at 100 batches/s
    /// each would otherwise wake the outbox thread 400 times a second).
    func pipelineDidProcessBurst() {
        if queuedSinceWake {
            queuedSinceWake = false
            outbox.wake()
        }
    }

    /// Hands the encoded batch of stream `k` to the outbox. Reads the route's fields in place (a
    /// copy of the route, two `String`s, would cost retains per message) and makes the one
    /// `enqueue` call inside `withPayload`'s non-escaping closure, whose context lives on the stack
    /// (a closure held in a local would put its context on the heap: an allocation per message).
    private func send(route k: Int) {
        let handle = streams[k].handle
        let qos = streams[k].route.qos
        let retain = streams[k].route.retain
        let wait = lossless.load(ordering: .relaxed)
        queuedSinceWake = true
        withPayload(of: k) { outbox.enqueue(stream: handle, payload: $0, qos: qos, retain: retain, waitForRoom: wait, wake: false) }
    }

    /// Calls `body` with the bytes of stream `k`'s encoded batch (the influx or the JSON writer,
    /// by the route's format). The bytes are read through the array's own `withUnsafeBytes`,
    /// specialised here (the writers' generic wrappers are not inlinable across modules: a
    /// runtime generic-metadata lookup per call); `body` is non-escaping, so no allocation.
    private func withPayload<R>(of k: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        streams[k].route.format == .influx ? lines.buffer.withUnsafeBytes(body) : writer.buffer.withUnsafeBytes(body)
    }
}

/// A counter written by one thread and read by others.
final class RelaxedCounter: Sendable {
    private let storage = Atomic<UInt64>(0)
    func increment() { storage.wrappingAdd(1, ordering: .relaxed) }
    var value: UInt64 { storage.load(ordering: .relaxed) }
}
