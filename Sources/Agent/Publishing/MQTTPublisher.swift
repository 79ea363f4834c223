import EdgeMotion
import Logging
import Messaging
import MotionCore
import Synchronization

/// The agent's `PipelineOutput`: encodes each batch into a preallocated JSON buffer and hands it
/// to libmosquitto. Runs on the pipeline's processing thread only, so its buffer and sequence
/// numbers need no lock.
///
/// While the broker is unreachable, QoS 0 stream batches are refused by libmosquitto
/// (`MOSQ_ERR_NO_CONN`) and counted as dropped per stream; nothing queues without bound.
final class MQTTPublisher: PipelineOutput, @unchecked Sendable {
    struct StreamRoute {
        var topic: String
        var qos: Int
        var retain: Bool
        /// Payload encoding; for `.influx`, `influxPrefix` is the line's measurement and tags.
        var format: PayloadFormat = .json
        var influxPrefix: [UInt8] = []

        init(topic: String, qos: Int, retain: Bool, format: PayloadFormat = .json, deviceID: String = "") {
            self.topic = topic
            self.qos = qos
            self.retain = retain
            self.format = format
            self.influxPrefix = format == .influx ? Array(deviceID.utf8) : []
        }
    }

    private let client: MQTTClient
    private let topics: TopicLayout
    private let routes: [StreamRoute]  // accelerometer, gyroscope, magnetometer, motion
    private let clock: WallClockMapping
    private let log = Logger(label: "publisher")
    private var writer = JSONWriter(capacity: 1 << 16)
    private var lines = LineProtocolWriter(capacity: 1 << 16)
    private var sequences: [UInt64] = [0, 0, 0, 0]
    private let published = (0..<4).map { _ in RelaxedCounter() }
    private let dropped = (0..<4).map { _ in RelaxedCounter() }
    private let endReason = Mutex<PipelineEnd?>(nil)
    private let lastFailureLogNanos = Atomic<UInt64>(0)

    init(client: MQTTClient, topics: TopicLayout, routes: [StreamRoute], clock: WallClockMapping) {
        precondition(routes.count == 4, "one route per stream: accelerometer, gyroscope, magnetometer, motion")
        self.client = client
        self.topics = topics
        self.routes = routes.enumerated().map { k, r in
            var r = r
            if r.format == .influx {
                let id = String(decoding: r.influxPrefix, as: UTF8.self)
                r.influxPrefix = k < 3 ? InfluxLineEncoder.sensorPrefix(deviceID: id, stream: SensorStream.allCases[k])
                                       : InfluxLineEncoder.motionPrefix(deviceID: id)
            }
            return r
        }
        self.clock = clock
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
            InfluxLineEncoder.encode(samples, stream: stream, prefix: routes[k].influxPrefix, clock: clock, into: &lines)
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
            InfluxLineEncoder.encode(motion, prefix: routes[3].influxPrefix, clock: clock, into: &lines)
            sequences[3] &+= 1
            return send(route: 3)
        }
        MotionBatchEncoder.encode(motion, sequence: sequences[3], interval: interval, clock: clock, into: &writer)
        sequences[3] &+= 1
        send(route: 3)
    }

    func pipeline(sourceStatusChanged error: (any Error)?) {
        // QoS 1 publishes queue inside libmosquitto without bound while offline; a flapping
        // source during a broker outage must not grow memory. The retained health is re-sent
        // with the next change once connected.
        guard client.isConnected else { return }
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        w.field("source", error == nil ? "ok" as StaticString : "failing" as StaticString)
        if let error { w.field("last_error", "\(error)") }
        w.field("time_utc_us", Int64(MonotonicClock.realtimeNanos() / 1000))
        w.endObject()
        _ = try? client.publish(topic: topics.health, payload: w.buffer, qos: 1, retain: true)
    }

    func pipeline(didEnd reason: PipelineEnd) {
        endReason.withLock { $0 = reason }
    }

    /// Why the pipeline ended, once it has.
    var ended: PipelineEnd? { endReason.withLock { $0 } }

    /// Messages handed to libmosquitto and refused, per stream (accelerometer, gyroscope,
    /// magnetometer, motion).
    var counts: (published: [UInt64], dropped: [UInt64]) {
        (published.map(\.value), dropped.map(\.value))
    }

    private func send(route k: Int) {
        let route = routes[k]
        do {
            let publish = { (bytes: UnsafeRawBufferPointer) throws(MQTTError) in
                _ = try self.client.publish(topic: route.topic, payload: bytes, qos: route.qos, retain: route.retain)
            }
            if route.format == .influx { try lines.withUnsafeBytes(publish) } else { try writer.withUnsafeBytes(publish) }
            published[k].increment()
        } catch {
            dropped[k].increment()
            // At most one log line per 10 s: an outage must not flood the journal.
            let now = MonotonicClock.nowNanos()
            if now &- lastFailureLogNanos.load(ordering: .relaxed) > 10_000_000_000 {
                lastFailureLogNanos.store(now, ordering: .relaxed)
                log.warning("publish refused; dropping stream batches until the broker is back",
                            ["topic": route.topic, "error": "\(error)"])
            }
        }
    }
}

/// A counter written by one thread and read by others.
final class RelaxedCounter: Sendable {
    private let storage = Atomic<UInt64>(0)
    func increment() { storage.wrappingAdd(1, ordering: .relaxed) }
    var value: UInt64 { storage.load(ordering: .relaxed) }
}
