/// Settings of the optional vibration spectrum (`events.vibration.spectrum`).
public struct VibrationSpectrumConfiguration: Sendable, Equatable {
    /// Off by default: the spectrum is a diagnostic (choosing `high_pass_hz` and the bands).
    public var enabled = false
    /// Seconds between two spectra (the publish rate; each one covers the last `length` samples).
    public var interval = 10.0
    /// Samples per transform, a power of two (64 … 4096): resolution `rate / length` Hz over the
    /// last `length / rate` s.
    public var length = 256
    /// Number of log-spaced frequency bins reported (each at least one FFT resolution wide, so
    /// fewer when the resolution does not allow as many).
    public var bins = 16
    /// Hz, the lower edge of the first bin (raised to 1.5 FFT resolutions: below that the mean
    /// removal and the window leave nothing to measure).
    public var lowestFrequency = 2.0
    public init() {}
}

/// One vibration spectrum: the RMS of the specific force per frequency bin.
public struct VibrationSpectrum: Sendable, Equatable {
    /// Sample time of the newest sample in the transform, s.
    public var time: Double
    /// Hz, the sample rate and the FFT resolution (`sampleRate / length`).
    public var sampleRate: Double
    public var resolution: Double
    /// Samples transformed (the configured length).
    public var length: Int
    /// Bin edges, Hz, `rms.count + 1` of them, increasing; bin i is `edges[i] ≤ f < edges[i+1]`.
    public var edges: [Double]
    /// m/s² RMS of the specific-force vector (all three axes) in each bin.
    public var rms: [Double]
    /// Hz and m/s²: the FFT line with the most energy at or above `edges[0]`, and the RMS of the
    /// whole spectrum from `edges[0]` to the last edge.
    public var peakFrequency: Double
    public var totalRMS: Double
}

/// The spectrum of the last `length` accelerometer samples, computed at the publish rate.
///
/// Per sample (`add`): one store into a preallocated ring, no allocation, no arithmetic beyond
/// the index. Per spectrum (`compute`, every `interval` s): for each axis the block with its mean
/// removed (so gravity, not high-passed: the spectrum shows also what `high_pass_hz` removes),
/// a Hann window, a radix-2 FFT (`RadixTwoFFT`, buffers allocated once) and the one-sided power
/// `2·|X_k|² / (N·Σw²)` (Parseval with the window's power: a sine of amplitude A reads A/√2),
/// summed over the three axes and over the FFT lines of each bin. Only the result's two arrays
/// are allocated, once per spectrum.
///
/// Input: specific force in m/s², board axes. A class: it owns its buffers; used by one thread
/// (the processing thread of the pipeline, or the caller).
public final class VibrationSpectrumAnalyzer {
    public let configuration: VibrationSpectrumConfiguration
    public let sampleRate: Double
    /// Bin edges, Hz (fixed at init from the length, rate and settings).
    public let edges: [Double]
    private let fft: RadixTwoFFT
    private let window: UnsafeMutableBufferPointer<Double>
    private let windowPower: Double
    private let ring: UnsafeMutableBufferPointer<Vector3>
    /// FFT line → bin index (−1: outside every bin), per line 0 … length/2.
    private let binOfLine: UnsafeMutableBufferPointer<Int>
    private let power: UnsafeMutableBufferPointer<Double>
    private var head = 0
    private var filled = 0
    private var nextTime = Double.nan

    /// `sampleRate` in Hz; `configuration.length` is rounded to a power of two in 64 … 4096.
    public init(configuration: VibrationSpectrumConfiguration, sampleRate: Double) {
        var n = 64
        while n < configuration.length, n < 4096 { n *= 2 }
        var c = configuration
        c.length = n
        self.configuration = c
        self.sampleRate = sampleRate
        fft = RadixTwoFFT(size: n)
        window = .allocate(capacity: n)
        var sum2 = 0.0
        for i in 0..<n {
            let w = 0.5 - 0.5 * (2 * Double.pi * Double(i) / Double(n)).cos   // periodic Hann
            window[i] = w
            sum2 += w * w
        }
        windowPower = sum2
        ring = .allocate(capacity: n)
        ring.initialize(repeating: .zero)
        edges = Self.edges(sampleRate: sampleRate, length: n, bins: c.bins, lowest: c.lowestFrequency)
        binOfLine = .allocate(capacity: n / 2 + 1)
        let resolution = sampleRate / Double(n)
        for k in 0...(n / 2) {
            let f = Double(k) * resolution
            var bin = -1
            for i in 0..<Swift.max(0, edges.count - 1) where f >= edges[i] && f < edges[i + 1] { bin = i }
            binOfLine[k] = bin
        }
        power = .allocate(capacity: n / 2 + 1)
        power.initialize(repeating: 0)
    }

    deinit {
        window.deallocate()
        ring.deallocate()
        binOfLine.deallocate()
        power.deallocate()
    }

    /// Log-spaced edges from `lowest` (at least 1.5 resolutions) to just below Nyquist, each bin
    /// at least one resolution wide (so there may be fewer than `bins`).
    static func edges(sampleRate: Double, length: Int, bins: Int, lowest: Double) -> [Double] {
        let resolution = sampleRate / Double(length)
        let low = Swift.max(lowest, 1.5 * resolution)
        let high = sampleRate / 2
        guard bins > 0, low < high else { return [] }
        let ratio = ((high / low).log / Double(bins)).exp
        var e = [low]
        var geometric = low
        for _ in 0..<bins {
            geometric *= ratio
            let next = Swift.max(geometric, e[e.count - 1] + resolution)
            if next >= high - 1e-9 {
                // The last bin ends at Nyquist; a remainder narrower than the resolution joins it.
                if high - e[e.count - 1] < resolution, e.count >= 2 { e[e.count - 1] = high } else { e.append(high) }
                break
            }
            e.append(next)
        }
        return e.count >= 2 ? e : []
    }

    /// One sample (m/s², board axes) at `time` (s). Returns `true` when a spectrum is due
    /// (`interval` passed since the last one and `length` samples are in): call `compute`.
    public func add(_ f: Vector3, time: Double) -> Bool {
        ring[head] = f
        head += 1
        if head == ring.count { head = 0 }
        if filled < ring.count { filled += 1 }
        guard filled == ring.count else { return false }
        if nextTime.isNaN { nextTime = time }
        return time >= nextTime
    }

    /// The spectrum of the last `length` samples, the newest at `time`; the next is due
    /// `interval` s later.
    public func compute(time: Double) -> VibrationSpectrum {
        nextTime = time + configuration.interval
        let n = ring.count
        for k in 0...(n / 2) { power[k] = 0 }
        let scale = 2 / (Double(n) * windowPower)
        for axis in 0..<3 {
            var mean = 0.0
            for i in 0..<n { mean += component(ring[i], axis) }
            mean /= Double(n)
            for i in 0..<n {
                // Oldest first: the ring's head is the oldest sample.
                var j = head + i
                if j >= n { j -= n }
                fft.real[i] = (component(ring[j], axis) - mean) * window[i]
                fft.imaginary[i] = 0
            }
            fft.forward()
            for k in 1..<(n / 2) {
                power[k] += (fft.real[k] * fft.real[k] + fft.imaginary[k] * fft.imaginary[k]) * scale
            }
        }
        let resolution = sampleRate / Double(n)
        var rms = [Double](repeating: 0, count: Swift.max(0, edges.count - 1))
        var peak = 0.0, peakLine = 0, total = 0.0
        for k in 1..<(n / 2) {
            let b = binOfLine[k]
            guard b >= 0 else { continue }
            rms[b] += power[k]
            total += power[k]
            if power[k] > peak { peak = power[k]; peakLine = k }
        }
        for i in rms.indices { rms[i] = rms[i].squareRoot() }
        return VibrationSpectrum(time: time, sampleRate: sampleRate, resolution: resolution, length: n, edges: edges,
                                 rms: rms, peakFrequency: Double(peakLine) * resolution, totalRMS: total.squareRoot())
    }

    private func component(_ v: Vector3, _ axis: Int) -> Double {
        axis == 0 ? v.x : axis == 1 ? v.y : v.z
    }
}
