import MotionCore

/// A consumer added at runtime, as the processing thread holds it: its own preallocated batch
/// buffers and decimation phases per stream. Built (and its buffers allocated) when a change is
/// applied between drains, never on the per-sample path.
final class RuntimeConsumer {
    let id: PipelineConsumerID
    let output: any PipelineOutput
    let schedule: ConsumerSchedule
    let accelerometer: SampleBuffer<IMUSample>
    let gyroscope: SampleBuffer<IMUSample>
    let magnetometer: SampleBuffer<IMUSample>
    let motion: SampleBuffer<DeviceMotion>
    let motionSchedule: EffectiveSchedule
    let referenceFrame: AttitudeReferenceFrame
    var motionPhase = 0

    init(id: PipelineConsumerID, output: any PipelineOutput, schedule: ConsumerSchedule, sourceRate: Double,
         sensors: IMUSample.Contents, defaultFrame: AttitudeReferenceFrame) {
        self.id = id
        self.output = output
        self.schedule = schedule
        func resolve(_ s: StreamSchedule, needs: IMUSample.Contents) -> EffectiveSchedule {
            EffectiveSchedule(sensors.contains(needs) ? s : .disabled, sourceRate: sourceRate)
        }
        accelerometer = SampleBuffer(schedule: resolve(schedule.accelerometer, needs: .accelerometer))
        gyroscope = SampleBuffer(schedule: resolve(schedule.gyroscope, needs: .gyroscope))
        magnetometer = SampleBuffer(schedule: resolve(schedule.magnetometer, needs: .magnetometer))
        motionSchedule = resolve(schedule.motion, needs: .accelerometer)
        motion = SampleBuffer(schedule: motionSchedule)
        referenceFrame = schedule.referenceFrame ?? defaultFrame
    }

    /// Delivers every partially filled batch.
    func flush() {
        let output = self.output
        accelerometer.flush { span, interval in output.pipeline(didProduce: span, of: .accelerometer, interval: interval) }
        gyroscope.flush { span, interval in output.pipeline(didProduce: span, of: .gyroscope, interval: interval) }
        magnetometer.flush { span, interval in output.pipeline(didProduce: span, of: .magnetometer, interval: interval) }
        motion.flush { span, interval in output.pipeline(didProduce: span, interval: interval) }
    }
}
