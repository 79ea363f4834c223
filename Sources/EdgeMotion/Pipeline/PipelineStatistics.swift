import Synchronization

/// Live counters of a running pipeline, updated with relaxed atomics (no locks on the hot path).
public final class PipelineCounters: Sendable {
    let acquired = Atomic<UInt64>(0)
    let processed = Atomic<UInt64>(0)
    let sequenceGaps = Atomic<UInt64>(0)
    let sourceErrors = Atomic<UInt64>(0)
    let sourceRetries = Atomic<UInt64>(0)
    let lastSampleNanos = Atomic<UInt64>(0)
    let maximumRingDepth = Atomic<Int>(0)
    let batchesDelivered = Atomic<UInt64>(0)
    /// One past the newest sequence number read (after `sequenceOffset`).
    let nextSequence = Atomic<UInt64>(0)

    init() {}
}

/// A snapshot of the pipeline's counters.
public struct PipelineStatistics: Sendable, Hashable {
    /// Samples read from the source.
    public var samplesAcquired: UInt64
    /// Samples run through fusion.
    public var samplesProcessed: UInt64
    /// Samples refused by the full ring (producer outran the consumer).
    public var ringDrops: UInt64
    /// Samples the source lost before us (gaps in its sequence numbers).
    public var sourceGaps: UInt64
    /// Source read/start failures since start.
    public var sourceErrors: UInt64
    /// Attempts to re-open the source after a failure, since start.
    public var sourceRetries: UInt64 = 0
    /// Monotonic nanoseconds of the newest processed sample (0 before the first).
    public var lastSampleNanos: UInt64
    /// Deepest the ring has been.
    public var maximumRingDepth: Int
    /// Batches handed to outputs.
    public var batchesDelivered: UInt64
}
