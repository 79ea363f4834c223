import Dispatch
import EdgeMotion
import Logging
import Messaging
import MotionCore

/// Pull over MQTT for consumers that sample (a dashboard that wakes up): the newest value of each
/// stream, taken from a pull-only `MotionManager` on the agent's own service (Core Motion's
/// "start updates, then read `accelerometerData`" pattern; the pull path allocates nothing).
///
/// - Retained `<prefix>/latest/accelerometer`, `…/gyroscope`, `…/magnetometer`, `…/motion`, one
///   sample each, every `streams.latest_interval_s` seconds (0 turns them off);
/// - `<prefix>/query/latest`: a request (any payload, or `{"reply_to":"…","id":"…"}`) answered
///   with all four in one document on the MQTT 5 response topic / `reply_to` /
///   `query/latest/response`.
final class LatestSnapshots: Sendable {
    let queryTopic: String
    private let manager: MotionManager
    private let topics: TopicLayout
    private let clock = WallClockMapping.current()
    private let log = Logger(label: "latest")

    init(service: MotionService, topics: TopicLayout) {
        manager = MotionManager(service: service)
        self.topics = topics
        queryTopic = topics.query("latest")
        // Ten updates a second are plenty for snapshots and cost little next to fusion.
        manager.accelerometerUpdateInterval = 0.1
        manager.gyroUpdateInterval = 0.1
        manager.magnetometerUpdateInterval = 0.1
        manager.deviceMotionUpdateInterval = 0.1
        if manager.isAccelerometerAvailable { manager.startAccelerometerUpdates() }
        if manager.isGyroAvailable { manager.startGyroUpdates() }
        if manager.isMagnetometerAvailable { manager.startMagnetometerUpdates() }
        if manager.isDeviceMotionAvailable { manager.startDeviceMotionUpdates() }
    }

    func stop() { manager.stopAllUpdates() }

    /// Queues the retained snapshots (newest value per topic).
    func publish(into outbox: Outbox) {
        for name in ["accelerometer", "gyroscope", "magnetometer", "motion"] {
            var w = JSONWriter(capacity: 1024)
            if write(name, into: &w) {
                outbox.enqueueState(topic: topics.latest(name), payload: w.buffer, qos: 1, retain: true)
            }
        }
    }

    /// Answers a `query/latest` request; returns whether the message was one. The request is
    /// read like a history query's (`HistoryQuery.envelope`: at most 4 KiB, an `id` of at most
    /// 128 bytes echoed); a reply topic `policy` refuses gets no answer.
    func handle(_ m: MQTTMessage, client: MQTTClient, policy: ReplyTopicPolicy, requestLog: RequestLog) -> Bool {
        guard m.topic == queryTopic else { return false }
        let request = HistoryQuery.envelope(m.payload)
        let reply = m.responseTopic ?? request.replyTo ?? TopicLayout.defaultResponse(to: queryTopic)
        if let why = policy.problem(reply) {
            requestLog.refusedReplyTopic(reply, requestTopic: m.topic, reason: why)
            return true
        }
        var w = JSONWriter(capacity: 4096)
        w.beginObject()
        if let id = request.id { w.field("id", id) }
        w.field("query", "latest" as StaticString)
        for name in ["accelerometer", "gyroscope", "magnetometer", "motion"] {
            w.key(Self.key(name))
            if !write(name, into: &w) { w.null() }
        }
        w.endObject()
        do {
            _ = try client.publish(topic: reply, payload: w.buffer, qos: 1, correlationData: m.correlationData)
        } catch {
            log.warning("cannot answer query/latest", ["topic": reply, "error": "\(error)"])
        }
        return true
    }

    private static func key(_ name: String) -> StaticString {
        switch name {
        case "accelerometer": "accelerometer"
        case "gyroscope": "gyroscope"
        case "magnetometer": "magnetometer"
        default: "motion"
        }
    }

    /// Writes one stream's newest value; false when there is none yet.
    private func write(_ name: String, into w: inout JSONWriter) -> Bool {
        func stamp(_ t: Double) {
            let nanos = UInt64((t * 1e9).rounded())
            w.field("t_mono_ns", nanos)
            w.field("t_utc_us", clock.utcNanos(monotonic: nanos) / 1000)
        }
        func vector(_ k: StaticString, _ v: Vector3, _ digits: Int) {
            w.key(k)
            w.beginArray()
            w.value(v.x, fractionDigits: digits); w.value(v.y, fractionDigits: digits); w.value(v.z, fractionDigits: digits)
            w.endArray()
        }
        switch name {
        case "accelerometer":
            guard let d = manager.accelerometerData else { return false }
            w.beginObject(); stamp(d.timestamp); w.field("unit", "g" as StaticString); vector("value", d.acceleration.vector, 6); w.endObject()
        case "gyroscope":
            guard let d = manager.gyroData else { return false }
            w.beginObject(); stamp(d.timestamp); w.field("unit", "rad/s" as StaticString); vector("value", d.rotationRate.vector, 6); w.endObject()
        case "magnetometer":
            guard let d = manager.magnetometerData else { return false }
            w.beginObject(); stamp(d.timestamp); w.field("unit", "uT" as StaticString); vector("value", d.magneticField.vector, 3); w.endObject()
        default:
            guard let m = manager.deviceMotion else { return false }
            w.beginObject()
            stamp(m.timestamp)
            w.field("frame", m.referenceFrame.rawValue)
            let q = m.attitude.quaternion
            w.key("quaternion")
            w.beginArray(); w.value(q.w, fractionDigits: 7); w.value(q.x, fractionDigits: 7); w.value(q.y, fractionDigits: 7); w.value(q.z, fractionDigits: 7); w.endArray()
            w.field("roll", m.attitude.roll, fractionDigits: 6)
            w.field("pitch", m.attitude.pitch, fractionDigits: 6)
            w.field("yaw", m.attitude.yaw, fractionDigits: 6)
            vector("gravity", m.gravity.vector, 6)
            vector("user_acceleration", m.userAcceleration.vector, 6)
            vector("rotation_rate", m.rotationRate.vector, 6)
            w.field("heading", m.heading, fractionDigits: 2)
            w.endObject()
        }
        return true
    }
}
