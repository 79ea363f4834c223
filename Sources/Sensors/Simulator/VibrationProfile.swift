import MotionCore

/// Broadband vibration (engine, road surface) as a fixed sum of sinusoids with pseudo-random
/// frequencies, phases and directions: an analytic function of time, so it is part of the
/// ground truth rather than sensor noise.
public struct VibrationProfile: Sendable, Hashable {
    struct Tone: Sendable, Hashable {
        var omega: Double       // rad/s
        var phase: Double       // rad
        var amplitude: Vector3  // m/s², ENU direction × amplitude
    }

    /// Lowest and highest tone frequency, Hz.
    public let band: ClosedRange<Double>
    /// RMS of the vibration acceleration magnitude, m/s².
    public let rms: Double
    let tones: [Tone]

    /// `count` tones spread over `band` Hz, scaled so the acceleration has RMS `rms` m/s².
    /// `verticalShare` (0…1) is the fraction of the power on the vertical axis.
    public init(band: ClosedRange<Double>, rms: Double, count: Int = 12, verticalShare: Double = 0.7, seed: UInt64) {
        self.band = band
        self.rms = rms
        var rng = SimulatorRandom(seed: seed)
        var tones: [Tone] = []
        tones.reserveCapacity(count)
        let h = ((1 - verticalShare) / 2).squareRoot()
        let v = verticalShare.squareRoot()
        var power = 0.0
        for k in 0..<Swift.max(count, 1) {
            // Stratified frequencies: one tone per sub-band, jittered.
            let width = (band.upperBound - band.lowerBound) / Double(Swift.max(count, 1))
            let f = band.lowerBound + width * (Double(k) + rng.uniform())
            let dir = Vector3(h * rng.normal(), h * rng.normal(), v * rng.normal())
            let tone = Tone(omega: 2 * .pi * f, phase: rng.uniform(0, 2 * .pi), amplitude: dir)
            power += dir.normSquared / 2
            tones.append(tone)
        }
        let scale = power > 0 ? rms / power.squareRoot() : 0
        self.tones = tones.map { Tone(omega: $0.omega, phase: $0.phase, amplitude: $0.amplitude * scale) }
    }

    /// Vibration acceleration in m/s², ENU, at `t` seconds.
    func acceleration(at t: Double) -> Vector3 {
        tones.withUnsafeBufferPointer { tones in
            var a = Vector3.zero
            for k in 0..<tones.count {
                a += tones[k].amplitude * (tones[k].omega * t + tones[k].phase).sin
            }
            return a
        }
    }
}
