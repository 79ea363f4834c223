/// One frequency band whose vibration RMS is reported (`name`, `low`…`high` Hz).
public struct VibrationBand: Sendable, Equatable {
    public var name: String
    /// Hz, lower and upper edge (second-order high-pass and low-pass at these frequencies).
    public var low: Double
    public var high: Double
    public init(name: String, low: Double, high: Double) {
        self.name = name
        self.low = low
        self.high = high
    }
}

/// Settings of `VibrationAnalyzer`.
public struct VibrationConfiguration: Sendable, Equatable {
    /// Hz: the high-pass (fourth-order Butterworth) that removes gravity and hand, body and
    /// door motion. Voluntary motion lives below ~10 Hz but its jerks and harmonics reach past
    /// it (hand-held motion still has 0.3–0.9 m/s² RMS above 10 Hz, a tenth of that above
    /// 20 Hz); fans, pumps, mains motors (25–50 Hz) and phone motors (150–250 Hz) vibrate above
    /// 20 Hz. A washer's drum (800–1400 rpm: 13–23 Hz) on a still machine: set 10.
    public var highPassCutoff = 20.0
    /// Seconds per reading (RMS, peak, bands, dominant frequency are over this window).
    public var window = 1.0
    /// m/s² RMS above which (for `onDwell` s) the machine is running: 1 m/s² ≈ 0.1 g, a
    /// vibration you can feel with a hand (ISO 2631's "uncomfortable" starts near 0.8 m/s²);
    /// fifty times a MEMS accelerometer's noise over 100 Hz.
    public var runningAbove = 1.0
    /// m/s² RMS below which (for `offDwell` s) it is idle.
    public var idleBelow = 0.5
    public var onDwell = 5.0
    public var offDwell = 5.0
    /// STA/LTA: seconds of the short- and long-term averages of the mean square.
    public var shortTerm = 2.0
    public var longTerm = 30.0
    /// Energy ratio (STA/LTA or its inverse) that is a 'vibration changed' (4 = RMS doubled/halved).
    public var changeRatio = 4.0
    /// m/s² RMS below which both averages count as silence (no change events from noise or
    /// handling; the idle level by default).
    public var changeFloor = 0.5
    /// Up to `VibrationReading.maximumBands` bands.
    public var bands: [VibrationBand] = []
    /// The optional spectrum (off by default; `VibrationSpectrumAnalyzer`).
    public var spectrum = VibrationSpectrumConfiguration()
    public init() {}
}

/// One vibration reading, once per window.
public struct VibrationReading: Sendable, BitwiseCopyable {
    public static let maximumBands = 4
    /// End of the window, s (sample clock).
    public var time: Double
    /// RMS of the high-passed specific-force vector's magnitude, m/s².
    public var rms: Double
    /// Largest high-passed magnitude in the window, m/s².
    public var peak: Double
    /// Hz: zero-crossing frequency of the axis with the most vibration energy (exact for one
    /// tone; for broadband vibration a rough centre frequency). 0 when quiet.
    public var dominantFrequency: Double
    /// RMS per configured band, m/s² (first `bandCount` entries).
    public var bands: InlineArray<4, Double>
    public var bandCount: Int
    /// Whether the running state is on.
    public var running: Bool
}

/// Vibration: gravity removed by a high-pass, RMS overall and per band, dominant frequency,
/// peak, a running/idle state with hysteresis and dwell, and STA/LTA 'vibration changed'.
/// Input specific force in m/s², sensor frame. No allocation per sample (the bands' filters
/// live in a fixed-size inline array).
public struct VibrationAnalyzer: Sendable {
    private struct Axes {
        var x: Biquad, y: Biquad, z: Biquad
        init(_ f: Biquad) { x = f; y = f; z = f }
        mutating func callAsFunction(_ v: Vector3) -> Vector3 { Vector3(x(v.x), y(v.y), z(v.z)) }
        mutating func prime(_ v: Vector3) { x.prime(v.x); y.prime(v.y); z.prime(v.z) }
    }
    /// A fourth-order Butterworth band: two high-pass and two low-pass sections per axis.
    private struct Band {
        var highPass1: Axes, highPass2: Axes, lowPass1: Axes, lowPass2: Axes
        var sum = 0.0
        init(low: Double, high: Double, rate: Double) {
            let q = Biquad.fourthOrderButterworthQ
            highPass1 = Axes(.highPass(cutoff: low, rate: rate, q: q.0))
            highPass2 = Axes(.highPass(cutoff: low, rate: rate, q: q.1))
            lowPass1 = Axes(.lowPass(cutoff: high, rate: rate, q: q.0))
            lowPass2 = Axes(.lowPass(cutoff: high, rate: rate, q: q.1))
        }
        mutating func callAsFunction(_ v: Vector3) -> Vector3 { lowPass2(lowPass1(highPass2(highPass1(v)))) }
    }

    public let configuration: VibrationConfiguration
    private var first: Axes, second: Axes
    private var bandFilters: InlineArray<4, Band>
    private let bandCount: Int
    private var primed = false
    private var windowStart = Double.nan
    private var count = 0
    private var sum = 0.0
    private var peak = 0.0
    private var axisEnergy = Vector3.zero
    private var crossings = (0, 0, 0)
    private var previous = Vector3.zero
    private var running: HysteresisSwitch
    private var sta = Double.nan, lta = Double.nan
    /// The newest reading, `nil` before the first window ends.
    public private(set) var latest: VibrationReading?

    /// Bands are cut at this fraction of the sample rate (just below Nyquist, 0.5).
    public static let bandLimitFraction = 0.45

    public init(configuration: VibrationConfiguration = VibrationConfiguration(), sampleRate: Double) {
        self.configuration = configuration
        let nyquistSafe = Self.bandLimitFraction * sampleRate
        let cutoff = Swift.min(configuration.highPassCutoff, 0.4 * sampleRate)
        let q = Biquad.fourthOrderButterworthQ
        first = Axes(.highPass(cutoff: cutoff, rate: sampleRate, q: q.0))
        second = Axes(.highPass(cutoff: cutoff, rate: sampleRate, q: q.1))
        bandCount = Swift.min(configuration.bands.count, VibrationReading.maximumBands)
        bandFilters = InlineArray(repeating: Band(low: 1, high: 2, rate: sampleRate))
        for i in 0..<bandCount {
            let b = configuration.bands[i]
            bandFilters[i] = Band(low: Swift.min(b.low, nyquistSafe), high: Swift.min(b.high, nyquistSafe), rate: sampleRate)
        }
        running = HysteresisSwitch(onAbove: configuration.runningAbove, offBelow: configuration.idleBelow,
                                   onDwell: configuration.onDwell, offDwell: configuration.offDwell)
    }

    /// Whether the running state is on.
    public var isRunning: Bool { running.isOn }

    /// One sample. Returns `true` when a window ended (`latest` is new); events go to `emit`.
    @discardableResult
    public mutating func update(specificForce f: Vector3, time: Double, emit: (MotionEvent) -> Void) -> Bool {
        if !primed {
            first.prime(f)
            for i in 0..<bandCount { bandFilters[i].highPass1.prime(f) }
            primed = true
            windowStart = time
        }
        let v = second(first(f))
        let m2 = v.normSquared
        sum += m2
        count += 1
        peak = Swift.max(peak, m2)
        axisEnergy += v.scaled(by: v)
        if (v.x > 0) != (previous.x > 0) { crossings.0 += 1 }
        if (v.y > 0) != (previous.y > 0) { crossings.1 += 1 }
        if (v.z > 0) != (previous.z > 0) { crossings.2 += 1 }
        previous = v
        for i in 0..<bandCount {
            let b = bandFilters[i](f)
            bandFilters[i].sum += b.normSquared
        }
        let span = time - windowStart
        guard span >= configuration.window - 1e-9, count > 1 else { return false }
        finishWindow(time: time, span: span, emit: emit)
        return true
    }

    private mutating func finishWindow(time: Double, span: Double, emit: (MotionEvent) -> Void) {
        let n = Double(count)
        let rms = (sum / n).squareRoot()
        var crossing = crossings.0
        if axisEnergy.y > axisEnergy.x, axisEnergy.y >= axisEnergy.z { crossing = crossings.1 }
        else if axisEnergy.z > axisEnergy.x, axisEnergy.z > axisEnergy.y { crossing = crossings.2 }
        let quiet = rms < configuration.idleBelow / 2
        var reading = VibrationReading(time: time, rms: rms, peak: peak.squareRoot(),
                                       dominantFrequency: quiet ? 0 : Double(crossing) / (2 * span),
                                       bands: InlineArray(repeating: 0), bandCount: bandCount, running: running.isOn)
        for i in 0..<bandCount {
            reading.bands[i] = (bandFilters[i].sum / n).squareRoot()
            bandFilters[i].sum = 0
        }
        if let on = running.update(rms, at: time) {
            var e = MotionEvent(type: on ? .vibrationStart : .vibrationStop, time: time, onset: running.onsetOfLastChange)
            e.peak = rms
            emit(e)
            reading.running = on
        }
        staLta(energy: rms * rms, span: span, time: time, emit: emit)
        latest = reading
        windowStart = time
        count = 0
        sum = 0
        peak = 0
        axisEnergy = .zero
        crossings = (0, 0, 0)
    }

    private mutating func staLta(energy: Double, span: Double, time: Double, emit: (MotionEvent) -> Void) {
        let c = configuration
        if sta.isNaN {
            sta = energy
            lta = energy
            return
        }
        sta += (energy - sta) * (span / (c.shortTerm + span))
        lta += (energy - lta) * (span / (c.longTerm + span))
        let floor = c.changeFloor * c.changeFloor
        guard Swift.max(sta, lta) > floor else { return }
        let ratio = Swift.max(sta, floor) / Swift.max(lta, floor)
        guard ratio > c.changeRatio || ratio < 1 / c.changeRatio else { return }
        var e = MotionEvent(type: .vibrationChanged, time: time, onset: time)
        e.ratio = ratio
        e.peak = sta.squareRoot()
        emit(e)
        lta = sta
    }
}
