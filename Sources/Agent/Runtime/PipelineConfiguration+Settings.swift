import EdgeMotion
import MotionCore

extension StreamSchedule {
    /// The pipeline schedule of one configured stream (`rate: 0` means the source rate).
    init(_ s: StreamSettings) {
        self.init(enabled: s.enabled, rate: s.rate, publishRate: s.publishRate)
    }
}

extension AgentConfiguration {
    /// `process.pipeline_threads` resolved. Auto (0) runs processing on the acquisition thread
    /// when the source wakes it once per burst of several samples (the simulator's `burst`, an I2C
    /// chip's FIFO watermark) and the recorder is off: measured at 1 kHz with bursts of 10, one
    /// thread costs ~20 % less CPU at the same latency. With one wake-up per sample, two threads
    /// cost the same CPU and keep a shorter latency tail (processing and publishing overlap the
    /// next read), and the recorder's disk writes must never delay a read.
    var processingThread: ProcessingThread {
        switch process.pipelineThreads {
        case 1: return .acquisition
        case 2: return .separate
        default:
            if recorder.enabled { return .separate }
            let bursts: Bool
            switch source.kind {
            case .simulator: bursts = source.simulator.effectiveBurst(sourceRate: source.rate, streams: streams) > 1
            case .i2c: bursts = source.i2c.fifo && source.i2c.fifoWatermark > 1
            default: bursts = false
            }
            return bursts ? .acquisition : .separate
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
        processingThread = c.processingThread
        if c.source.kind == .simulator {
            // One read takes a whole simulated FIFO burst.
            readBatchSize = max(readBatchSize, c.source.simulator.effectiveBurst(sourceRate: c.source.rate, streams: c.streams))
        }
    }
}
