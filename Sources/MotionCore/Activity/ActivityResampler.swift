/// Brings samples from any source rate (10 Hz – 1 kHz, regular or not) onto the detector's fixed
/// internal grid.
///
/// Above the internal rate every grid bin is the **box average** of the source samples that fall in
/// it (an anti-alias filter with its first null at the internal rate); below it, empty bins are
/// filled by linear interpolation between neighbouring bins. A gap longer than `maximumGap` is
/// reported instead of bridged. A sample back in time, or more than 1e15 bins after the first
/// (a corrupt time stamp), is ignored. Value type, no allocation.
public struct ActivityResampler: Sendable {
    /// One internal sample: specific force in m/s² (sensor frame) and, when every source sample in
    /// the bin had one, rotation rate in rad/s.
    @frozen
    public struct Output: Sendable, BitwiseCopyable {
        /// Bin centre, seconds of the source clock.
        public var time: Double
        public var specificForce: Vector3
        public var rotationRate: Vector3
        public var hasRotationRate: Bool
        /// The source had a gap before this sample: windows must restart.
        public var afterGap: Bool
    }

    public let rate: Double
    public let maximumGapBins: Int64
    private var origin = 0.0
    private var started = false
    private var bin: Int64 = 0
    private var sumForce = Vector3.zero
    private var sumRate = Vector3.zero
    private var count = 0
    private var rateCount = 0
    private var last: Output?
    private var lastBin: Int64 = 0

    /// `rate` in Hz, `maximumGap` in seconds.
    public init(rate: Double, maximumGap: Double) {
        self.rate = rate
        self.maximumGapBins = Swift.max(1, Int64((maximumGap * rate).rounded()))
    }

    /// Adds one source sample (time in seconds, specific force in m/s², rotation rate in rad/s or
    /// `nil`) and hands every completed internal sample to `emit`, oldest first. Samples that go
    /// back in time are ignored.
    public mutating func add(time: Double, specificForce: Vector3, rotationRate: Vector3?,
                             emit: (Output) -> Void) {
        guard time.isFinite else { return }
        if !started {
            started = true
            origin = time
            bin = 0
        }
        let position = ((time - origin) * rate).rounded(.down)
        // Back in time, or so far ahead that the bin number would not fit (a corrupt time stamp):
        // ignored, so the samples that follow carry on from the grid as it is.
        guard position >= Double(bin), position < 1e15 else { return }
        let k = Int64(position)
        if k > bin {
            finishBin(emit: emit)
            if k - bin > maximumGapBins { last = nil }
            bin = k
        }
        sumForce += specificForce
        count += 1
        if let w = rotationRate {
            sumRate += w
            rateCount += 1
        }
    }

    private mutating func finishBin(emit: (Output) -> Void) {
        guard count > 0 else { return }
        let n = Double(count)
        var out = Output(time: origin + (Double(bin) + 0.5) / rate, specificForce: sumForce / n,
                         rotationRate: .zero, hasRotationRate: rateCount == count, afterGap: false)
        if out.hasRotationRate { out.rotationRate = sumRate / n }
        if let prev = last {
            let missing = bin - lastBin - 1
            if missing > 0 {
                for j in 1...missing {
                    let a = Double(j) / Double(missing + 1)
                    let f = prev.specificForce * (1 - a) + out.specificForce * a
                    let both = prev.hasRotationRate && out.hasRotationRate
                    let w = both ? prev.rotationRate * (1 - a) + out.rotationRate * a : .zero
                    emit(Output(time: origin + (Double(lastBin + j) + 0.5) / rate, specificForce: f,
                                rotationRate: w, hasRotationRate: both, afterGap: false))
                }
            }
        } else if lastBin != 0 || bin != 0 {
            out.afterGap = true
        }
        emit(out)
        last = out
        lastBin = bin
        sumForce = .zero
        sumRate = .zero
        count = 0
        rateCount = 0
    }
}
