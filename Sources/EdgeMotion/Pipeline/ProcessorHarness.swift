import MotionCore

/// `MotionProcessor` driven exactly as the pipeline's processing loop drives it — one ring drain
/// at a time, specialised for the configured filter — for callers outside this module (the
/// in-process benchmarks).
///
/// Why it exists: `MotionProcessor` is generic over the filter, and a generic called from
/// another module runs unspecialised (a generic-metadata lookup and witness-table calls per
/// sample), which is not the code the pipeline runs. Here the filter is picked once and every
/// call below is on a concrete `MotionProcessor<RobustAttitudeFilter>` or
/// `MotionProcessor<ComplementaryFilter>`, specialised in this module like `MotionPipeline`'s.
package final class ProcessorHarness {
    private var robust: MotionProcessor<RobustAttitudeFilter>?
    private var complementary: MotionProcessor<ComplementaryFilter>?

    package init(configuration: PipelineConfiguration, sourceRate: Double, schedules: [SensorStream: EffectiveSchedule],
                 motionSchedule: EffectiveSchedule, sensors: IMUSample.Contents = .all) {
        switch configuration.filter {
        case .default:
            robust = MotionProcessor(configuration: configuration, sourceRate: sourceRate, schedules: schedules,
                                     motionSchedule: motionSchedule, sensors: sensors)
        case .complementary:
            complementary = MotionProcessor(configuration: configuration, sourceRate: sourceRate, schedules: schedules,
                                            motionSchedule: motionSchedule, sensors: sensors)
        }
    }

    /// Processes every sample queued in `ring`, oldest first (one wake-up of the processing
    /// thread). Returns how many.
    @discardableResult
    package func drain(_ ring: SampleRing<IMUSample>, outputs: [any PipelineOutput]) -> Int {
        if robust != nil {
            return ring.drain { robust!.process($0, outputs: outputs) }
        }
        return ring.drain { complementary!.process($0, outputs: outputs) }
    }

    /// Processes one sample.
    package func process(_ sample: IMUSample, outputs: [any PipelineOutput]) {
        if robust != nil { robust!.process(sample, outputs: outputs) } else { complementary!.process(sample, outputs: outputs) }
    }

    /// Adds, updates or removes runtime consumers (between drains, as the pipeline does).
    package func apply(_ changes: [ConsumerChange]) {
        if robust != nil { robust!.apply(changes) } else { complementary!.apply(changes) }
    }
}
