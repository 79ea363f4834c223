import Dispatch
import EdgeMotion
import Logging
import Messaging
import MotionCore
import Synchronization

/// Core Motion's `deviceRequiresMovement`, for people and dashboards: when the configured north-
/// referenced frame has no usable heading (the magnetometer is not yet observable, or its field is
/// disturbed and rejected), the agent says so **once per episode** on `<prefix>/events/status`
/// (spooled, never dropped) and in its log, and again when the episode ends — never per sample.
///
/// It is one more client of the library: a `MotionManager` on the agent's service, receiving
/// device motion twice a second in the configured frame, with the manager's own
/// `deviceRequiresMovement` / `trueNorthNotAvailable` errors.
final class MovementAdvisor: Sendable {
    private let manager: MotionManager
    private let outbox: Outbox
    private let topic: String
    /// `events/status`'s numbering, shared with the agent's other status events.
    private let sequence: EventSequence
    private let frame: AttitudeReferenceFrame
    private let queue = DispatchQueue(label: "edgemotion.movement-advisor")
    private let log = Logger(label: "fusion")
    /// Whether an episode is open, and its reason.
    private let episode = Mutex<String?>(nil)

    /// `nil` when the frame is not north-referenced. On a source without a magnetometer it
    /// announces once that the frame is not available (`notAvailable`; the payloads say
    /// `xArbitraryZVertical`, heading −1).
    init?(service: MotionService, frame: AttitudeReferenceFrame, outbox: Outbox, topics: TopicLayout, sequence: EventSequence) {
        guard frame == .xMagneticNorthZVertical || frame == .xTrueNorthZVertical else { return nil }
        manager = MotionManager(service: service)
        self.outbox = outbox
        topic = topics.event("status")
        self.sequence = sequence
        self.frame = frame
    }

    func start() {
        manager.deviceMotionUpdateInterval = 0.5
        manager.startDeviceMotionUpdates(using: frame, to: queue) { [self] motion, error in
            if let error {
                if error == .deviceRequiresMovement {
                    open(reason: "no heading yet: move the device (figure-eight) so the magnetometer can find north")
                } else if error == .trueNorthNotAvailable {
                    let reason = "no location for the declination (set fusion.latitude and fusion.longitude); using magnetic north (frame xMagneticNorthZVertical)"
                    log.warning("true north not available", ["reason": reason])
                    emit("trueNorthNotAvailable", reason: reason)
                } else if error == .notAvailable {
                    let reason = "\(frame.rawValue) needs a magnetometer and the source has none; attitude has an arbitrary heading (frame xArbitraryZVertical, heading -1)"
                    log.warning("reference frame not available", ["reason": reason])
                    emit("notAvailable", reason: reason)
                }
                return
            }
            guard let m = motion else { return }
            if m.magneticDisturbance {
                open(reason: "magnetic field disturbed (a magnet or iron nearby); heading held from the gyroscope, move away or recalibrate")
            } else if m.heading >= 0 {
                close()
            }
        }
    }

    func stop() { manager.stopDeviceMotionUpdates() }

    private func open(reason: String) {
        let opened = episode.withLock { e -> Bool in
            guard e == nil else { return false }
            e = reason
            return true
        }
        guard opened else { return }
        log.warning("device requires movement", ["reason": reason])
        emit("deviceRequiresMovement", reason: reason)
    }

    private func close() {
        let closed = episode.withLock { e -> Bool in
            guard e != nil else { return false }
            e = nil
            return true
        }
        guard closed else { return }
        log.notice("heading available again")
        emit("headingAvailable", reason: "the magnetometer gives a usable heading again")
    }

    private func emit(_ event: String, reason: String) {
        var w = JSONWriter(capacity: 512)
        sequence.beginEvent(&w)
        w.field("event", event)
        w.field("reason", reason)
        w.field("time_utc_us", Int64(MonotonicClock.realtimeNanos() / 1000))
        w.endObject()
        outbox.enqueueEvent(topic: topic, payload: w.buffer)
    }
}
