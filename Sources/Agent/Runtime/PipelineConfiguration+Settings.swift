import EdgeMotion
import MotionCore

extension StreamSchedule {
    /// The pipeline schedule of one configured stream (`rate: 0` means the source rate).
    init(_ s: StreamSettings) {
        self.init(enabled: s.enabled, rate: s.rate, publishRate: s.publishRate)
    }
}

extension ProcessSettings {
    /// `pipeline_threads` resolved: auto (0) keeps processing off the acquisition thread only
    /// when the recorder (the one output that writes to disk on that thread) is on.
    func processingThread(recorderEnabled: Bool) -> ProcessingThread {
        switch pipelineThreads {
        case 1: .acquisition
        case 2: .separate
        default: recorderEnabled ? .separate : .acquisition
        }
    }
}

extension PipelineConfiguration {
    /// The pipeline configuration the agent's config file describes.
    init(_ c: AgentConfiguration) {
        self.init(
            requestedRate: c.source.rate,
            accelerometer: StreamSchedule(c.streams.accelerometer),
            gyroscope: StreamSchedule(c.streams.gyroscope),
            magnetometer: StreamSchedule(c.streams.magnetometer),
            motion: StreamSchedule(c.streams.motion),
            filter: AttitudeFilterKind(rawValue: c.fusion.filter) ?? .default,
            referenceFrame: c.fusion.referenceFrame,
            declination: FusionSetup.declination(c.fusion))
        learnsGyroBias = c.fusion.gyroBiasLearning
        sourceRetryMaximumSeconds = c.source.retryMaxSeconds
        processingThread = c.process.processingThread(recorderEnabled: c.recorder.enabled)
        if c.source.kind == .simulator {
            // One read takes a whole simulated FIFO burst.
            readBatchSize = max(readBatchSize, c.source.simulator.effectiveBurst(sourceRate: c.source.rate, streams: c.streams))
        }
    }
}
