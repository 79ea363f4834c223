/// Keeps the last window of internal samples in preallocated rings and computes
/// `ActivityFeatures` over it on demand (once per decision hop).
///
/// Per internal sample (`append`, O(1)): the gravity direction is estimated by a first-order
/// low-pass of the specific force (time constant `gravityTimeConstant`), and the sample is split
/// into |f|, its dynamic part along that estimated vertical, the magnitude of the dynamic part in
/// the horizontal plane, and the angle the estimate turned since the previous sample. Nothing
/// depends on which sensor axis points where.
///
/// Everything — rings, the FFT, scratch arrays — is allocated in `init`; `append` and `compute`
/// never allocate.
public final class ActivityFeatureExtractor {
    public let rate: Double
    public let windowLength: Int
    /// Time constant of the gravity low-pass, s (cut-off ≈ 0.16 Hz: below every gait, above a
    /// hand's slow re-orientation).
    public let gravityTimeConstant: Double
    private let mag, vert, horiz, turn, ux, uy, uz, gyro: UnsafeMutableBufferPointer<Double>
    private let dyn, hann: UnsafeMutableBufferPointer<Double>
    private let fft: RadixTwoFFT
    private var writeIndex = 0
    /// Internal samples in the window (saturates at `windowLength`).
    public private(set) var filled = 0
    /// Consecutive most recent samples that had a rotation rate.
    private var gyroRun = 0
    private var gravity = Vector3.zero
    private var up = Vector3.zero
    private var primed = false
    private let alpha: Double

    public init(rate: Double, windowLength: Int, gravityTimeConstant: Double = 1.0) {
        self.rate = rate
        self.windowLength = windowLength
        self.gravityTimeConstant = gravityTimeConstant
        alpha = (1 / rate) / (gravityTimeConstant + 1 / rate)
        func buffer() -> UnsafeMutableBufferPointer<Double> {
            let b = UnsafeMutableBufferPointer<Double>.allocate(capacity: windowLength)
            b.initialize(repeating: 0)
            return b
        }
        mag = buffer(); vert = buffer(); horiz = buffer(); turn = buffer()
        ux = buffer(); uy = buffer(); uz = buffer(); gyro = buffer()
        dyn = buffer(); hann = buffer()
        for i in 0..<windowLength {
            hann[i] = 0.5 - 0.5 * (2 * Double.pi * Double(i) / Double(windowLength - 1)).cos
        }
        fft = RadixTwoFFT(size: windowLength)
    }

    deinit {
        for b in [mag, vert, horiz, turn, ux, uy, uz, gyro, dyn, hann] { b.deallocate() }
    }

    /// Whether a full window is available.
    public var isFull: Bool { filled >= windowLength }

    /// Forgets the window and the gravity estimate (after a source gap).
    public func reset() {
        filled = 0
        gyroRun = 0
        writeIndex = 0
        primed = false
    }

    /// Appends one internal sample: specific force m/s², rotation rate rad/s (`nil` without gyro).
    public func append(specificForce f: Vector3, rotationRate w: Vector3?) {
        if primed {
            gravity += (f - gravity) * alpha
        } else {
            gravity = f
            primed = true
        }
        let gn = gravity.norm
        let u = gn > 1e-9 ? gravity / gn : Vector3(0, 0, 1)
        let d = f - gravity
        let v = d.dot(u)
        let i = writeIndex
        mag[i] = f.norm
        vert[i] = v
        horiz[i] = Swift.max(0, d.normSquared - v * v).squareRoot()
        // Small-angle turn of the estimated vertical since the previous sample, rad.
        turn[i] = filled == 0 ? 0 : (u - up).norm
        up = u
        ux[i] = u.x; uy[i] = u.y; uz[i] = u.z
        if let w {
            gyro[i] = w.normSquared
            gyroRun = Swift.min(gyroRun + 1, windowLength)
        } else {
            gyroRun = 0
        }
        writeIndex += 1
        if writeIndex == windowLength { writeIndex = 0 }
        if filled < windowLength { filled += 1 }
    }

    /// The oldest-first index of ring slot `i`.
    @inline(__always) private func slot(_ i: Int) -> Int {
        let j = writeIndex + i
        return j >= windowLength ? j - windowLength : j
    }

    /// Features over the current (full) window.
    public func compute() -> ActivityFeatures {
        let n = windowLength
        let dn = Double(n)
        var out = ActivityFeatures()
        var magMean = 0.0, vMean = 0.0, hSq = 0.0, turnSum = 0.0
        var meanUp = Vector3.zero
        for i in 0..<n {
            let s = slot(i)
            dyn[i] = mag[s]
            magMean += mag[s]
            vMean += vert[s]
            hSq += horiz[s] * horiz[s]
            if i > 0 { turnSum += turn[s] }
            meanUp += Vector3(ux[s], uy[s], uz[s])
        }
        magMean /= dn
        vMean /= dn
        out.meanMagnitude = magMean
        var magVar = 0.0, vVar = 0.0, jerk = 0.0, peak = 0.0
        for i in 0..<n {
            let md = dyn[i] - magMean
            dyn[i] = md
            magVar += md * md
            peak = Swift.max(peak, abs(md))
            if i > 0 { jerk += abs(md - dyn[i - 1]) }
            let vd = vert[slot(i)] - vMean
            vVar += vd * vd
        }
        let magStd = (magVar / dn).squareRoot()
        out.logStdMagnitude = (magStd + 0.001).log
        out.logVerticalStd = ((vVar / dn).squareRoot() + 0.001).log
        out.logHorizontalRMS = ((hSq / dn).squareRoot() + 0.001).log
        out.logJerk = (jerk / (dn - 1) * rate + 0.001).log
        out.crestFactor = magStd > 1e-6 ? peak / magStd : 0
        out.logTiltRate = (turnSum / (dn - 1) * rate * 180 / Double.pi + 0.01).log
        let centre = meanUp.normalized
        var maxAngle = 0.0
        for i in 0..<n {
            let s = slot(i)
            let c = Swift.min(1, Swift.max(-1, Vector3(ux[s], uy[s], uz[s]).dot(centre)))
            maxAngle = Swift.max(maxAngle, c.acos.degrees)
        }
        out.logTiltRange = (maxAngle + 0.01).log

        var older = 0.0, newer = 0.0
        for i in 0..<n {
            if i < n / 2 { older += dyn[i] * dyn[i] } else { newer += dyn[i] * dyn[i] }
        }
        out.halfEnergyLogRatio = ((newer + 1e-4) / (older + 1e-4)).log
        var newerMean = 0.0
        for i in (n / 2)..<n { newerMean += dyn[i] }
        newerMean /= Double(n - n / 2)
        var newerVar = 0.0
        for i in (n / 2)..<n { newerVar += (dyn[i] - newerMean) * (dyn[i] - newerMean) }
        out.logStdNewerHalf = ((newerVar / Double(n - n / 2)).squareRoot() + 0.001).log

        spectrum(&out)

        // Autocorrelation of |f|: step periodicity, cadence (sub-sample lag) and stride regularity.
        let minLag = Swift.max(2, Int((rate / 4).rounded(.down)))
        let maxLag = Swift.min(n - 3, Int((rate / 0.5).rounded(.up)))
        let (p, lag) = Self.periodicity(dyn, count: n, energy: magVar, minLag: minLag, maxLag: maxLag)
        out.periodicity = p
        if lag > 0 {
            let a = Self.autocorrelation(dyn, n, lag - 1, magVar)
            let b = Self.autocorrelation(dyn, n, lag, magVar)
            let c = Self.autocorrelation(dyn, n, lag + 1, magVar)
            let curvature = a - 2 * b + c
            let shift = curvature < 0 ? Swift.min(0.5, Swift.max(-0.5, 0.5 * (a - c) / curvature)) : 0
            out.cadence = rate / (Double(lag) + shift)
            let stride = Int((2 * (Double(lag) + shift)).rounded())
            out.strideRegularity = stride < n - 1 ? Self.autocorrelation(dyn, n, stride, magVar) : 0
        }

        if gyroRun >= n {
            var sq = 0.0
            for i in 0..<n { sq += gyro[slot(i)] }
            out.gyroscopeAvailable = true
            out.gyroRMS = (sq / dn).squareRoot()
        }
        return out
    }

    /// Band fractions and entropy of the |f| power spectrum (Hann window, bins above 0.2 Hz).
    private func spectrum(_ out: inout ActivityFeatures) {
        let n = windowLength
        for i in 0..<n {
            fft.real[i] = dyn[i] * hann[i]
            fft.imaginary[i] = 0
        }
        fft.forward()
        let binHz = rate / Double(n)
        var total = 0.0, low = 0.0, gait = 0.0, high = 0.0
        var bins = 0
        for k in 1...(n / 2) {
            let hz = Double(k) * binHz
            if hz < 0.2 { continue }
            let p = fft.real[k] * fft.real[k] + fft.imaginary[k] * fft.imaginary[k]
            fft.imaginary[k] = p
            total += p
            bins += 1
            if hz < 0.9 { low += p } else if hz < 2.6 { gait += p } else { high += p }
        }
        guard total > 1e-12, bins > 1 else { return }
        out.lowFrequencyFraction = low / total
        out.gaitFraction = gait / total
        out.highFrequencyFraction = high / total
        var entropy = 0.0
        for k in 1...(n / 2) where Double(k) * binHz >= 0.2 {
            let q = fft.imaginary[k] / total
            if q > 1e-12 { entropy -= q * q.log }
        }
        out.spectralEntropy = entropy / Double(bins).log
    }

    @inline(__always)
    private static func autocorrelation(_ x: UnsafeMutableBufferPointer<Double>, _ n: Int, _ k: Int, _ energy: Double) -> Double {
        guard energy > 1e-12, k >= 0, k < n else { return 0 }
        var s = 0.0
        for i in 0..<(n - k) { s += x[i] * x[i + k] }
        return s / energy
    }

    /// The highest local maximum of the normalised autocorrelation of `x` in `minLag…maxLag`, and the
    /// smallest lag whose local maximum reaches 80 % of it (the step, not the stride), or (0, 0).
    static func periodicity(_ x: UnsafeMutableBufferPointer<Double>, count n: Int, energy: Double,
                            minLag: Int, maxLag: Int) -> (Double, Int) {
        guard energy > 1e-12, maxLag < n else { return (0, 0) }
        return bestPeak(minLag: minLag, maxLag: maxLag) { k in autocorrelation(x, n, k, energy) }
    }

    /// Highest local maximum of `ac` over `minLag…maxLag` and the smallest lag whose local maximum
    /// reaches 80 % of it; (0, 0) when there is no positive local maximum.
    static func bestPeak(minLag: Int, maxLag: Int, _ ac: (Int) -> Double) -> (Double, Int) {
        guard minLag >= 1, maxLag > minLag + 1 else { return (0, 0) }
        var best = 0.0
        var prev = ac(minLag - 1), cur = ac(minLag)
        var k = minLag
        while k < maxLag {
            let next = ac(k + 1)
            if cur >= prev, cur >= next, cur > best { best = cur }
            prev = cur; cur = next; k += 1
        }
        guard best > 0 else { return (0, 0) }
        prev = ac(minLag - 1); cur = ac(minLag); k = minLag
        while k < maxLag {
            let next = ac(k + 1)
            if cur >= prev, cur >= next, cur >= 0.8 * best { return (best, k) }
            prev = cur; cur = next; k += 1
        }
        return (best, 0)
    }
}
