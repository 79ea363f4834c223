import EdgeMotion

/// What carries over when a reload replaces the pipeline (a new source): sample numbers continue
/// (`first_sample`, `seq`-style loss detection keeps working) and the counters in `stats` keep
/// counting from the earlier pipelines' totals instead of going back to 0.
struct PipelineContinuity {
    /// Totals of the pipelines already stopped.
    private var base: PipelineStatistics?
    /// The next pipeline's `PipelineConfiguration.sequenceOffset`.
    private(set) var nextSequence: UInt64 = 0

    /// Folds a pipeline that was just stopped into the totals.
    mutating func retire(_ pipeline: MotionPipeline) {
        let s = pipeline.statistics
        nextSequence = pipeline.nextSequence
        guard var base else { self.base = s; return }
        defer { self.base = base }
        base.samplesAcquired &+= s.samplesAcquired
        base.samplesProcessed &+= s.samplesProcessed
        base.ringDrops &+= s.ringDrops
        base.sourceGaps &+= s.sourceGaps
        base.sourceErrors &+= s.sourceErrors
        base.sourceRetries &+= s.sourceRetries
        base.batchesDelivered &+= s.batchesDelivered
        base.maximumRingDepth = max(base.maximumRingDepth, s.maximumRingDepth)
    }

    /// The totals of the pipelines already stopped (nil before the first was retired).
    var retiredTotals: PipelineStatistics? { base }

    /// `current`'s counters plus the earlier pipelines'.
    func totals(_ current: PipelineStatistics) -> PipelineStatistics {
        guard let base else { return current }
        var s = current
        s.samplesAcquired &+= base.samplesAcquired
        s.samplesProcessed &+= base.samplesProcessed
        s.ringDrops &+= base.ringDrops
        s.sourceGaps &+= base.sourceGaps
        s.sourceErrors &+= base.sourceErrors
        s.sourceRetries &+= base.sourceRetries
        s.batchesDelivered &+= base.batchesDelivered
        s.maximumRingDepth = max(s.maximumRingDepth, base.maximumRingDepth)
        return s
    }
}
