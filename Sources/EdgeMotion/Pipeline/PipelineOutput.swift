import MotionCore

/// Why the pipeline stopped producing.
public enum PipelineEnd: Sendable, Equatable {
    /// `stop()` was called.
    case stopped
    /// A recording ran out.
    case endOfStream
}

/// Receives what the pipeline produces, on the pipeline's processing thread.
///
/// Batches arrive as `Span`s borrowed for the duration of the call (no copy, no allocation):
/// copy what you keep. Implementations must return quickly and never block on the network —
/// the agent encodes into a preallocated buffer and hands the bytes to its outbox;
/// `MotionManager` copies into its handlers' queues.
public protocol PipelineOutput: AnyObject, Sendable {
    /// A batch of decimated raw samples of one sensor stream is complete, oldest first.
    /// `interval` is the seconds between samples at the stream's effective rate.
    func pipeline(didProduce samples: Span<IMUSample>, of stream: SensorStream, interval: Double)
    /// A batch of device-motion states is complete, oldest first.
    func pipeline(didProduce motion: Span<DeviceMotion>, interval: Double)
    /// The source failed (and will be retried) or recovered; `error == nil` means recovered.
    func pipeline(sourceStatusChanged error: (any Error)?)
    /// The pipeline has stopped; every batch has been delivered (partial batches flushed).
    func pipeline(didEnd reason: PipelineEnd)
    /// The processing thread has worked through every sample that was waiting (one wake-up: a
    /// FIFO burst, or a single sample). Outputs that defer hand-offs to another thread wake it
    /// here, once per burst instead of once per batch.
    func pipelineDidProcessBurst()
}

extension PipelineOutput {
    public func pipeline(didProduce samples: Span<IMUSample>, of stream: SensorStream, interval: Double) {}
    public func pipeline(didProduce motion: Span<DeviceMotion>, interval: Double) {}
    public func pipeline(sourceStatusChanged error: (any Error)?) {}
    public func pipeline(didEnd reason: PipelineEnd) {}
    public func pipelineDidProcessBurst() {}
}
