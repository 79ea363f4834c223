/// Keeps the last window of internal samples in preallocated rings and computes
/// `ActivityFeatures` over it on demand (once per decision hop).
///
/// Everything — rings, the FFT, scratch arrays — is allocated in `init`; `append` and `compute`
/// never allocate.
public final class ActivityFeatureExtractor {
    public let rate: Double
    public let windowLength: Int
    private let fx, fy, fz, wx, wy, wz: UnsafeMutableBufferPointer<Double>
    private let mag, dyn, hann: UnsafeMutableBufferPointer<Double>
    private let fft: RadixTwoFFT
    private var writeIndex = 0
    /// Internal samples in the window (saturates at `windowLength`).
    public private(set) var filled = 0
    /// Consecutive most recent samples that had a rotation rate.
    private var gyroRun = 0

    public init(rate: Double, windowLength: Int) {
        self.rate = rate
        self.windowLength = windowLength
        func buffer() -> UnsafeMutableBufferPointer<Double> {
            let b = UnsafeMutableBufferPointer<Double>.allocate(capacity: windowLength)
            b.initialize(repeating: 0)
            return b
        }
        fx = buffer(); fy = buffer(); fz = buffer()
        wx = buffer(); wy = buffer(); wz = buffer()
        mag = buffer(); dyn = buffer(); hann = buffer()
        for i in 0..<windowLength {
            hann[i] = 0.5 - 0.5 * (2 * Double.pi * Double(i) / Double(windowLength - 1)).cos
        }
        fft = RadixTwoFFT(size: windowLength)
    }

    deinit {
        for b in [fx, fy, fz, wx, wy, wz, mag, dyn, hann] { b.deallocate() }
    }

    /// Whether a full window is available.
    public var isFull: Bool { filled >= windowLength }

    /// Forgets the window (after a source gap).
    public func reset() {
        filled = 0
        gyroRun = 0
        writeIndex = 0
    }

    /// Appends one internal sample: specific force m/s², rotation rate rad/s (`nil` without gyro).
    public func append(specificForce f: Vector3, rotationRate w: Vector3?) {
        fx[writeIndex] = f.x; fy[writeIndex] = f.y; fz[writeIndex] = f.z
        if let w {
            wx[writeIndex] = w.x; wy[writeIndex] = w.y; wz[writeIndex] = w.z
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
        // Mean specific force (gravity estimate) and |f|.
        var g = Vector3.zero
        var magMean = 0.0
        for i in 0..<n {
            let s = slot(i)
            let f = Vector3(fx[s], fy[s], fz[s])
            g += f
            let m = f.norm
            mag[i] = m
            magMean += m
        }
        g = g / dn
        magMean /= dn
        out.meanMagnitude = magMean
        let gn = g.normalized
        var magVar = 0.0, magFourth = 0.0, vVar = 0.0, hSq = 0.0, jerk = 0.0
        for i in 0..<n {
            let s = slot(i)
            let d = Vector3(fx[s], fy[s], fz[s]) - g
            let v = d.dot(gn)
            vVar += v * v
            hSq += (d - gn * v).normSquared
            let md = mag[i] - magMean
            dyn[i] = md
            magVar += md * md
            magFourth += md * md * md * md
            if i > 0 { jerk += abs(md - dyn[i - 1]) }
        }
        var older = 0.0, newer = 0.0
        for i in 0..<n {
            let md = dyn[i]
            if i < n / 2 { older += md * md } else { newer += md * md }
        }
        out.halfEnergyLogRatio = ((newer + 1e-4) / (older + 1e-4)).log
        // Newer half about its own mean.
        var newerMean = 0.0
        for i in (n / 2)..<n { newerMean += dyn[i] }
        newerMean /= Double(n - n / 2)
        var newerVar = 0.0
        for i in (n / 2)..<n { newerVar += (dyn[i] - newerMean) * (dyn[i] - newerMean) }
        out.logStdNewerHalf = ((newerVar / Double(n - n / 2)).squareRoot() + 0.001).log
        out.logStdMagnitude = ((magVar / dn).squareRoot() + 0.001).log
        let variance = magVar / dn
        out.magnitudeKurtosis = variance > 1e-12 ? (magFourth / dn) / (variance * variance) : 0
        out.logVerticalStd = ((vVar / dn).squareRoot() + 0.001).log
        out.logHorizontalRMS = ((hSq / dn).squareRoot() + 0.001).log
        out.logJerk = (jerk / (dn - 1) + 0.001).log

        // Spectrum of |f| (Hann window): band fractions.
        for i in 0..<n {
            fft.real[i] = dyn[i] * hann[i]
            fft.imaginary[i] = 0
        }
        fft.forward()
        var total = 0.0, high = 0.0, gait = 0.0, low = 0.0
        let binHz = rate / dn
        for k in 1...(n / 2) {
            let hz = Double(k) * binHz
            if hz < 0.2 { continue }
            let p = fft.real[k] * fft.real[k] + fft.imaginary[k] * fft.imaginary[k]
            total += p
            if hz >= 5 { high += p } else if hz >= 0.8 && hz < 3.5 { gait += p } else if hz < 0.8 { low += p }
        }
        if total > 1e-12 {
            out.highFrequencyFraction = high / total
            out.gaitFraction = gait / total
            out.lowFrequencyFraction = low / total
        }

        horizontalSpectrum(&out, gravityDirection: gn, mean: g)

        // Tilt of 1 s block means against the window mean.
        let block = Swift.max(1, Int(rate.rounded()))
        var maxAngle = 0.0
        var b = 0
        while b + block <= n {
            var m = Vector3.zero
            for i in b..<(b + block) {
                let s = slot(i)
                m += Vector3(fx[s], fy[s], fz[s])
            }
            let c = m.normalized.dot(gn)
            maxAngle = Swift.max(maxAngle, c.acos.degrees)
            b += block
        }
        out.logTiltMax = (maxAngle + 0.01).log

        // Autocorrelation of |f| for the step periodicity and cadence.
        let (p, lag) = Self.periodicity(dyn, count: n, energy: magVar,
                                        minLag: Int((rate / 3.6).rounded()), maxLag: Int((rate / 0.5).rounded()))
        out.periodicity = p
        out.cadence = lag > 0 ? rate / Double(lag) : 0

        if gyroRun >= n { gyroFeatures(&out, gravityDirection: gn) }
        return out
    }

    /// Spectral shape of the dynamic specific force perpendicular to the window's mean gravity
    /// direction (orientation-independent: the power summed over any two horizontal axes). Both
    /// horizontal axes go through one complex FFT (x + iy); `|X_k|² + |Y_k|² = (|Z_k|² + |Z_{N−k}|²) / 2`.
    /// Road and body vibration in a vehicle is broadband and rises towards 10 Hz; a hand-held
    /// device drifts and tilts slowly (power below 3 Hz).
    private func horizontalSpectrum(_ out: inout ActivityFeatures, gravityDirection gn: Vector3, mean g: Vector3) {
        let n = windowLength
        let helper = abs(gn.x) < 0.9 ? Vector3(1, 0, 0) : Vector3(0, 1, 0)
        let e1 = gn.cross(helper).normalized
        let e2 = gn.cross(e1)
        for i in 0..<n {
            let s = slot(i)
            let d = Vector3(fx[s], fy[s], fz[s]) - g
            fft.real[i] = d.dot(e1) * hann[i]
            fft.imaginary[i] = d.dot(e2) * hann[i]
        }
        fft.forward()
        let binHz = rate / Double(n)
        var total = 0.0, low = 0.0, body = 0.0, high = 0.0
        for k in 1...(n / 2) {
            let hz = Double(k) * binHz
            if hz < 0.2 { continue }
            let j = n - k
            var p = fft.real[k] * fft.real[k] + fft.imaginary[k] * fft.imaginary[k]
            p += fft.real[j] * fft.real[j] + fft.imaginary[j] * fft.imaginary[j]
            if k == n / 2 { p *= 0.5 }  // Nyquist bin: Z_k and Z_{N−k} are the same bin
            total += p
            if hz < 0.8 { low += p } else if hz < 3 { body += p } else if hz >= 6 && hz <= 12.5 { high += p }
        }
        // Powers of a Hann-windowed transform; the floor (≈ (0.003 m/s²)² per bin) keeps the
        // slope finite for a perfectly still synthetic signal.
        let floor = 1e-5 * Double(n)
        out.horizontalSpectralSlope = ((high + floor) / (body + floor)).log
        out.horizontalLowFraction = total > 1e-12 ? low / total : 0
    }

    private func gyroFeatures(_ out: inout ActivityFeatures, gravityDirection gn: Vector3) {
        let n = windowLength
        let dn = Double(n)
        var mean = Vector3.zero
        var totalSquare = 0.0, yawSquare = 0.0
        for i in 0..<n {
            let s = slot(i)
            let w = Vector3(wx[s], wy[s], wz[s])
            mean += w
            totalSquare += w.normSquared
            let yaw = w.dot(gn)
            yawSquare += yaw * yaw
        }
        mean = mean / dn
        out.gyroTotalRMS = (totalSquare / dn).squareRoot()
        out.gyroYawShare = totalSquare > 1e-12 ? Swift.min(1, yawSquare / totalSquare) : 0
        // Reuse the scratch arrays: mag/dyn/fft.real hold the three centred axes.
        let ax = mag, ay = dyn, az = fft.real
        var energy = 0.0
        for i in 0..<n {
            let s = slot(i)
            ax[i] = wx[s] - mean.x; ay[i] = wy[s] - mean.y; az[i] = wz[s] - mean.z
            energy += ax[i] * ax[i] + ay[i] * ay[i] + az[i] * az[i]
        }
        out.gyroscopeAvailable = true
        out.gyroRMS = (energy / dn).squareRoot()
        guard energy > 1e-12 else { return }
        let (best, bestLag) = Self.bestPeak(minLag: Int((rate / 1.8).rounded()),
                                            maxLag: Swift.min(n - 2, Int((rate / 0.6).rounded()))) { k in
            Self.vectorLagProduct(ax, ay, az, n, k) / energy
        }
        out.gyroPeriodicity = best
        out.gyroCadence = bestLag > 0 ? rate / Double(bestLag) : 0
    }

    private static func vectorLagProduct(_ a: UnsafeMutableBufferPointer<Double>, _ b: UnsafeMutableBufferPointer<Double>,
                                         _ c: UnsafeMutableBufferPointer<Double>, _ n: Int, _ lag: Int) -> Double {
        var s = 0.0
        for i in 0..<(n - lag) { s += a[i] * a[i + lag] + b[i] * b[i + lag] + c[i] * c[i + lag] }
        return s
    }

    /// The highest local maximum of the normalised autocorrelation of `x` in `minLag…maxLag`, and the
    /// smallest lag whose local maximum reaches 80 % of it (the step, not the stride), or (0, 0).
    static func periodicity(_ x: UnsafeMutableBufferPointer<Double>, count n: Int, energy: Double,
                            minLag: Int, maxLag: Int) -> (Double, Int) {
        guard energy > 1e-12, maxLag < n else { return (0, 0) }
        return bestPeak(minLag: minLag, maxLag: maxLag) { k in
            var s = 0.0
            for i in 0..<(n - k) { s += x[i] * x[i + k] }
            return s / energy
        }
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
