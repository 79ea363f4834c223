import EdgeMotion
import Logging
import Messaging
import MotionCore
import Synchronization

/// A `PipelineOutput` that turns motion batches into the throttled, deadbanded
/// `<prefix>/summary` topic Home Assistant reads (retained, QoS 1):
///
/// ```json
/// {"roll_deg":-1.2,"pitch_deg":0.4,"heading_deg":271.3,"moving":false,"time_utc_us":1764491426123456}
/// ```
/// At most `summary_rate` messages per second (wall clock, so a replay at maximum speed does not
/// flood either); a message only when an angle moved by more than `angle_deadband_deg`, `moving`
/// changed, or `heartbeat_s` passed. Runs on the processing thread: per batch it only compares
/// numbers; it encodes and publishes at most once per period, and only while connected (QoS 1
/// would otherwise queue inside libmosquitto).
final class SummaryPublisher: PipelineOutput, @unchecked Sendable {
    /// |user acceleration| above this (g) counts as moving.
    static let movingAcceleration = 0.05
    /// |rotation rate| above this (rad/s, ≈ 5.7 °/s) counts as moving.
    static let movingRotationRate = 0.1

    private let client: ClientBox
    private let topic: String
    private let settings: HomeAssistantSettings
    private let clock: WallClockMapping
    private let periodNanos: UInt64
    private let heartbeatNanos: UInt64
    private var movedSincePublish = false
    private var lastSentNanos: UInt64 = 0
    private var writer = JSONWriter(capacity: 256)
    private let last = Mutex<(sent: SummaryState?, latest: SummaryState?)>((nil, nil))
    private let published = RelaxedCounter()

    init(client: ClientBox, topic: String, settings: HomeAssistantSettings, clock: WallClockMapping) {
        self.client = client
        self.topic = topic
        self.settings = settings
        self.clock = clock
        periodNanos = UInt64(1e9 / settings.summaryRate)
        heartbeatNanos = UInt64(settings.heartbeatSeconds * 1e9)
    }

    /// Summaries published so far.
    var publishedCount: UInt64 { published.value }

    func pipeline(didProduce motion: Span<DeviceMotion>, interval: Double) {
        guard !motion.isEmpty else { return }
        for i in motion.indices {
            let m = motion[i]
            if m.userAcceleration.vector.norm > Self.movingAcceleration || m.rotationRate.vector.norm > Self.movingRotationRate {
                movedSincePublish = true
            }
        }
        let newest = motion[motion.count - 1]
        let state = SummaryState(
            rollDegrees: newest.attitude.roll * 180 / .pi,
            pitchDegrees: newest.attitude.pitch * 180 / .pi,
            headingDegrees: newest.heading >= 0 ? newest.heading : nil,
            moving: movedSincePublish,
            timeUTCMicroseconds: clock.utcNanos(monotonic: UInt64((newest.timestamp * 1e9).rounded())) / 1000)
        let now = MonotonicClock.nowNanos()
        guard lastSentNanos == 0 || now &- lastSentNanos >= periodNanos else {
            last.withLock { $0.latest = state }
            return
        }
        let previous = last.withLock { v -> SummaryState? in
            v.latest = state
            return v.sent
        }
        let due = previous.map { state.differs(from: $0, deadbandDegrees: settings.angleDeadbandDegrees) } ?? true
        guard due || now &- lastSentNanos >= heartbeatNanos else { return }
        if send(state) {
            lastSentNanos = now
            movedSincePublish = false
            last.withLock { $0.sent = state }
        }
    }

    /// Re-sends the newest state (Home Assistant came online); any thread.
    func republish() {
        guard let state = last.withLock({ $0.latest }) else { return }
        var w = JSONWriter(capacity: 256)
        Self.encode(state, into: &w)
        _ = try? client.get()?.publish(topic: topic, payload: w.buffer, qos: 1, retain: true)
    }

    private func send(_ state: SummaryState) -> Bool {
        guard let c = client.get(), c.isConnected else { return false }
        Self.encode(state, into: &writer)
        do {
            _ = try writer.withUnsafeBytes { bytes throws(MQTTError) in
                try c.publish(topic: topic, payload: bytes, qos: 1, retain: true)
            }
            published.increment()
            return true
        } catch {
            return false
        }
    }

    static func encode(_ s: SummaryState, into w: inout JSONWriter) {
        w.reset()
        w.beginObject()
        w.field("roll_deg", s.rollDegrees, fractionDigits: 2)
        w.field("pitch_deg", s.pitchDegrees, fractionDigits: 2)
        w.key("heading_deg")
        if let h = s.headingDegrees { w.value(h, fractionDigits: 2) } else { w.null() }
        w.field("moving", s.moving)
        w.field("time_utc_us", s.timeUTCMicroseconds)
        w.endObject()
    }
}
