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
    /// whenever a late read costs no sample, because something holds the samples while processing
    /// runs: the simulator paced in real time (it models a FIFO), an I2C chip's FIFO, the IIO
    /// buffer (the kernel's), or the simulator's bursts of several samples as fast as it goes.
    /// Measured on this VM at 1 kHz, 4 streams (stop 35, `pipeline_threads` 1 vs 2, same binary,
    /// interleaved): with one wake-up per sample one thread costs ~45 % less CPU (25–27 vs 43–54
    /// µs/sample at 100 messages/s a stream; 46–48 vs 65–67 at 1000) and has the shorter latency
    /// tail (p99 0.189 vs 0.227 ms, median of 4 rounds, batch 1) — the second thread's wake-up per
    /// sample costs more than the overlap saves; with bursts of 10 ~20 % less CPU. Two threads
    /// remain where a read must never wait for an output: the recorder's disk writes (and
    /// `fdatasync`) run on the processing thread; a polled source (I2C without FIFO, IIO sysfs
    /// reads) loses the sample a late read misses; a replay as fast as possible overlaps reading
    /// the file with processing; and the unpaced simulator one sample at a time likewise.
    var processingThread: ProcessingThread {
        switch process.pipelineThreads {
        case 1: return .acquisition
        case 2: return .separate
        default:
            if recorder.enabled { return .separate }
            let buffered: Bool
            switch source.kind {
            case .simulator:
                buffered = source.simulator.realTime || source.simulator.effectiveBurst(sourceRate: source.rate, streams: streams) > 1
            case .i2c: buffered = source.i2c.fifo
            case .iio: buffered = source.iio.buffer
            case .replay: buffered = false
            }
            return buffered ? .acquisition : .separate
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
