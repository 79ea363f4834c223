import EdgeMotion
import Logging
import Messaging
import MotionCore
import Platform
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `cmd/mount` on the running agent (main thread): learns the mount from resting samples taken
/// from the pipeline by a temporary consumer, refuses if the board was not at rest, keeps the
/// learned rotation in `<state_directory>/edgemotion-mount.txt` (atomic write) and applies it to
/// the running pipeline at once (`MotionPipeline.setMount`). `clear` forgets it.
///
/// The consumer sees board-axis samples (the current mount applied); they are turned back into
/// chip axes before averaging, so learning twice gives the same rotation as learning once.
final class MountControl {
    /// What to answer on `cmd/mount/result`.
    struct Reply {
        var id: String?
        var action: MountCommand.Action
        var error: String?
        var learned: MountLearner.Result?
        var mount: IMUMount

        /// The fields after `id`/`ok`/`error`: the action and, on success, the applied rotations.
        func writeFields(into w: inout JSONWriter) {
            w.field("action", action.rawValue)
            guard error == nil else { return }
            w.key("accel_gyro"); Self.write(mount.inertial.matrix, into: &w)
            w.key("magnetometer"); Self.write(mount.magnetometer.matrix, into: &w)
            if let r = learned {
                w.field("samples", r.samples)
                w.key("resting_specific_force")
                w.beginArray()
                w.value(r.meanSpecificForce.x, fractionDigits: 4); w.value(r.meanSpecificForce.y, fractionDigits: 4)
                w.value(r.meanSpecificForce.z, fractionDigits: 4)
                w.endArray()
                w.field("accelerometer_spread", r.accelerometerSpread, fractionDigits: 4)
                w.field("tilt_deg", Self.tiltDegrees(r.meanSpecificForce), fractionDigits: 2)
            }
        }

        static func write(_ m: Matrix3, into w: inout JSONWriter) {
            w.beginArray()
            for row in [m.row1, m.row2, m.row3] {
                w.beginArray()
                w.value(row.x, fractionDigits: 6); w.value(row.y, fractionDigits: 6); w.value(row.z, fractionDigits: 6)
                w.endArray()
            }
            w.endArray()
        }

        /// Angle between the resting specific force and chip +z, degrees (how far the mount turns).
        static func tiltDegrees(_ f: Vector3) -> Double { (f.z / max(f.norm, 1e-12)).acos * 180 / .pi }
    }

    private struct Pending {
        var id: String?
        var consumer: PipelineConsumerID
        var collector: MountSampleCollector
        var pipeline: MotionPipeline
        var deadline: UInt64
    }

    /// The rotations the running pipeline applies.
    private(set) var current: IMUMount
    /// Where `current` comes from (`meta`'s `mount.source`).
    private(set) var origin: MountSettings.Origin
    private var pending: Pending?
    /// A `learn` is collecting samples (the main loop polls it until it ends).
    var isLearning: Bool { pending != nil }
    private let log = Logger(label: "mount")

    init(current: IMUMount, origin: MountSettings.Origin) {
        self.current = current
        self.origin = origin
    }

    /// A new pipeline started with `mount` (start or reload); a learning in progress is abandoned
    /// (its reply comes from the next `poll`).
    func pipelineStarted(with mount: IMUMount, origin: MountSettings.Origin) {
        current = mount
        self.origin = origin
    }

    /// Starts or performs `command`. Returns the reply now, or `nil` while samples are collected
    /// (then `poll` answers).
    func handle(_ command: MountCommand, configuration c: AgentConfiguration, pipeline: MotionPipeline,
                sourceRate: Double, hasAccelerometer: Bool, now: UInt64) -> Reply? {
        func refuse(_ message: String) -> Reply { Reply(id: command.id, action: command.action, error: message, mount: current) }
        guard c.source.mount.canLearn else {
            return refuse("source.mount.accel_gyro is fixed in the configuration; set it to learned (or remove it) to learn the mount")
        }
        guard pending == nil else { return refuse("a mount learning is already in progress") }
        switch command.action {
        case .clear:
            let path = MountSetup.path(c)
            if unlink(path) != 0, errno != ENOENT {
                return refuse("cannot remove \(path): \(Errno.current.text)")
            }
            current = c.source.mount.resolved(learned: nil)
            origin = c.source.mount.origin(learned: nil)
            pipeline.setMount(current)
            log.notice("learned mount cleared", ["file": path])
            return Reply(id: command.id, action: .clear, mount: current)
        case .learn:
            guard hasAccelerometer else { return refuse(MountLearner.Refusal.noAccelerometer.description) }
            let collector = MountSampleCollector(samples: command.samples, toChip: current.inertial.matrix.transposed)
            let id = pipeline.addConsumer(collector, schedule: .only(.accelerometer, StreamSchedule(rate: 0, publishRate: 10)))
            let seconds = Double(command.samples) / max(sourceRate, 1e-3) + 5
            pending = Pending(id: command.id, consumer: id, collector: collector, pipeline: pipeline,
                              deadline: now + UInt64(min(seconds, 3600) * 1e9))
            log.notice("learning the mount: keep the board still", ["samples": "\(command.samples)"])
            return nil
        }
    }

    /// The reply of a finished (or timed-out) learning; `nil` while it runs or when none does.
    func poll(configuration c: AgentConfiguration, now: UInt64) -> Reply? {
        guard let p = pending else { return nil }
        let (learner, ended) = p.collector.snapshot
        guard learner.isComplete || ended || now >= p.deadline else { return nil }
        p.pipeline.removeConsumer(p.consumer)
        pending = nil
        func refuse(_ message: String) -> Reply {
            log.warning("mount not learned", ["reason": message])
            return Reply(id: p.id, action: .learn, error: message, mount: current)
        }
        if !learner.isComplete, ended { return refuse("the pipeline stopped or restarted while learning; send the command again") }
        switch learner.result() {
        case .failure(let refusal):
            return refuse(refusal.description)
        case .success(let r):
            let path = MountSetup.path(c)
            let text = MountFile.encode(r.mount, restingSpecificForce: r.meanSpecificForce, samples: r.samples)
            do throws(FileError) { try WholeFile.write(text, atomicallyTo: path) } catch {
                return refuse("cannot keep the learned mount in \(path): \(error); nothing applied (state_directory must be writable)")
            }
            current = c.source.mount.resolved(learned: r.mount)
            origin = c.source.mount.origin(learned: r.mount)
            p.pipeline.setMount(current)
            log.notice("mount learned and applied", ["file": path, "samples": "\(r.samples)",
                                                     "tilt_deg": "\((Reply.tiltDegrees(r.meanSpecificForce) * 100).rounded() / 100)"])
            return Reply(id: p.id, action: .learn, learned: r, mount: current)
        }
    }
}

/// The temporary consumer of `MountControl`: folds accelerometer-stream samples, turned back into
/// chip axes, into a `MountLearner` (processing thread; one lock per batch).
final class MountSampleCollector: PipelineOutput {
    private let state: Mutex<(learner: MountLearner, ended: Bool)>
    private let toChip: Matrix3

    init(samples: Int, toChip: Matrix3) {
        state = Mutex((MountLearner(samples: samples), false))
        self.toChip = toChip
    }

    var snapshot: (MountLearner, Bool) { state.withLock { ($0.learner, $0.ended) } }

    func pipeline(didProduce samples: Span<IMUSample>, of stream: SensorStream, interval: Double) {
        state.withLock { s in
            for i in samples.indices {
                var x = samples[i]
                x.specificForce = toChip * x.specificForce
                x.rotationRate = toChip * x.rotationRate
                s.learner.add(x)
            }
        }
    }

    func pipeline(didEnd reason: PipelineEnd) { state.withLock { $0.ended = true } }
}
