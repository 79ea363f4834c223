import Testing
@testable import MotionCore

/// The vibration spectrum against first principles: a sine of amplitude A has RMS A/√2, two tones
/// in different bins add in power, a constant (gravity) is no vibration, and the bins are
/// log-spaced with the edges written out by hand.
@Suite struct VibrationSpectrumTests {
    let g = 9.80665

    func analyzer(rate: Double = 200, length: Int = 256, bins: Int = 16, interval: Double = 10) -> VibrationSpectrumAnalyzer {
        var c = VibrationSpectrumConfiguration()
        c.enabled = true
        c.length = length
        c.bins = bins
        c.interval = interval
        return VibrationSpectrumAnalyzer(configuration: c, sampleRate: rate)
    }

    func bin(of f: Double, in s: VibrationSpectrum) -> Int? {
        (0..<s.rms.count).first { f >= s.edges[$0] && f < s.edges[$0 + 1] }
    }

    /// 25 Hz at 200 Hz with 256 samples is FFT line 32 (resolution 0.78125 Hz): a 2 m/s² sine on
    /// x over gravity on z reads 2/√2 = 1.4142 m/s² RMS in its bin, 25 Hz peak, and nothing else.
    @Test func aSineReadsItsRMSInItsBinAndGravityIsNotVibration() throws {
        let a = analyzer()
        var spectrum: VibrationSpectrum?
        for k in 0..<256 {
            let t = Double(k) / 200
            if a.add(Vector3(2 * (2 * Double.pi * 25 * t).sin, 0, g), time: t) { spectrum = a.compute(time: t) }
        }
        let s = try #require(spectrum, "due once the 256 samples are in")
        #expect(s.resolution == 0.78125 && s.length == 256)
        #expect(abs(s.peakFrequency - 25) < 1e-9)
        let b = try #require(bin(of: 25, in: s))
        #expect(abs(s.rms[b] - 2 / 2.0.squareRoot()) < 0.01 * 1.4142, "\(s.rms[b])")
        #expect(abs(s.totalRMS - 2 / 2.0.squareRoot()) < 0.01 * 1.4142)
        for i in s.rms.indices where i != b { #expect(s.rms[i] < 0.02, "bin \(i) [\(s.edges[i]), \(s.edges[i + 1])) reads \(s.rms[i])") }
    }

    /// 10 Hz (line 12.8: between lines, so the window spreads it over neighbours of one bin) at
    /// 1 m/s² on y and 62.5 Hz (line 80) at 0.5 m/s² on z: 0.7071 and 0.3536 m/s² in their bins,
    /// total √(0.5 + 0.125) = 0.7906 m/s².
    @Test func twoTonesOnTwoAxesEachReadTheirOwnBin() throws {
        let a = analyzer()
        var spectrum: VibrationSpectrum?
        for k in 0..<256 {
            let t = Double(k) / 200
            let f = Vector3(0, (2 * Double.pi * 10 * t).sin, g + 0.5 * (2 * Double.pi * 62.5 * t).sin)
            if a.add(f, time: t) { spectrum = a.compute(time: t) }
        }
        let s = try #require(spectrum)
        let low = try #require(bin(of: 10, in: s)), high = try #require(bin(of: 62.5, in: s))
        #expect(low != high)
        #expect(abs(s.rms[low] - 0.7071) < 0.03, "\(s.rms[low])")
        #expect(abs(s.rms[high] - 0.3536) < 0.005, "\(s.rms[high])")
        #expect(abs(s.totalRMS - 0.7906) < 0.02, "\(s.totalRMS)")
        #expect(abs(s.peakFrequency - 10) < 0.8)
    }

    /// 200 Hz, 256 samples, 4 bins from 2 Hz to Nyquist (100 Hz): ratio 50^(1/4) = 2.65915, so
    /// edges 2, 5.3183, 14.1421 (= √200), 37.6060, 100.
    @Test func binEdgesAreLogSpacedFromTheLowestFrequencyToNyquist() {
        let e = analyzer(bins: 4).edges
        let expected = [2, 5.3183, 14.1421, 37.6060, 100]
        #expect(e.count == 5)
        for (x, y) in zip(e, expected) { #expect(abs(x - y) < 1e-3, "\(e)") }
        // At 50 Hz with 64 samples (0.78 Hz resolution) 64 bins cannot all be one resolution wide
        // between 2 and 25 Hz: fewer bins, each at least 0.78 Hz, the first at 2 Hz.
        let coarse = analyzer(rate: 50, length: 64, bins: 64).edges
        #expect(coarse.count < 65 && coarse.first == 2 && coarse.last == 25)
        for i in 1..<coarse.count { #expect(coarse[i] - coarse[i - 1] >= 0.78125 - 1e-12) }
    }

    /// Rate-limited: the first spectrum once the block is full (256 samples = 1.28 s at 200 Hz),
    /// then one per `interval` (10 s): over 60 s, at 1.275, 11.275, …, 51.275 s, six in all.
    @Test func oneSpectrumPerIntervalOnceTheBlockIsFull() {
        let a = analyzer(interval: 10)
        var times: [Double] = []
        for k in 0..<12_000 {
            let t = Double(k) / 200
            if a.add(Vector3(0, 0, g), time: t) { times.append(a.compute(time: t).time) }
        }
        #expect(times.count == 6, "\(times)")
        #expect(abs((times.first ?? 0) - 1.275) < 1e-9)
        for i in 1..<times.count { #expect(abs(times[i] - times[i - 1] - 10) < 0.01) }
    }
}
