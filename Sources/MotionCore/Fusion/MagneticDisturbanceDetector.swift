/// Watches the magnitude ("norm", µT) and dip angle (rad: the angle of the field above the
/// horizontal in the earth frame, negative in the northern hemisphere) of the measured magnetic
/// field and decides whether it may be used for heading.
///
/// - A *reference* norm and dip is learned: the first one after the field has been consistent
///   for `newFirstTime`, later ones when a different field has been consistent for `newTime`
///   while the device moves (a stable field seen from many orientations is the earth's, not a
///   local disturbance).
/// - The field is *disturbed* while its norm or dip differ from the reference by more than the
///   thresholds, and clears after it has matched for `minUndisturbedTime`.
/// - A disturbed field is rejected for at most `maxRejectionTime`; the budget recovers
///   `rejectionFactor` times faster than real time while undisturbed. Beyond it the field is used
///   anyway (with the gain scaled by `budgetGainFactor`), so a lasting change never freezes the
///   heading forever.
///
/// Measured choices where this departs from VQF's published method or keeps it (docs/fusion.md,
/// "Magnetic-disturbance detector"): the norm/dip low-pass order (`secondOrder`), and the gain
/// after the budget (`budgetGainFactor`). The rotation rate that gates new references is chosen by
/// the caller (raw or low-passed).
@frozen
public struct MagneticDisturbanceDetector: Sendable, BitwiseCopyable {
    public var enabled: Bool
    public var normThreshold: Double        // relative
    public var dipThreshold: Double         // rad
    public var currentTau: Double           // s
    public var referenceTau: Double         // s
    public var newTime: Double              // s
    public var newFirstTime: Double         // s
    public var newMinGyro: Double           // rad/s
    public var minUndisturbedTime: Double   // s
    public var maxRejectionTime: Double     // s
    public var rejectionFactor: Double
    /// Gain factor for a disturbed field once the budget is spent (1 = full gain, VQF 0.5).
    public var budgetGainFactor: Double
    /// Second-order Butterworth low-pass of norm and dip (VQF) instead of first-order.
    public var secondOrder: Bool

    /// Low-passed current norm (µT) and dip (rad).
    public private(set) var norm = 0.0
    public private(set) var dip = 0.0
    /// The learned reference; `referenceNorm == 0` until one exists.
    public private(set) var referenceNorm = 0.0
    public private(set) var referenceDip = 0.0
    public private(set) var isDisturbed = false
    /// Seconds of rejection spent from the budget.
    public private(set) var rejectionTime = 0.0
    /// Set when a new reference was adopted by the last `update`.
    public private(set) var adoptedNewReference = false
    var candidateNorm = 0.0
    var candidateDip = 0.0
    var candidateTime = 0.0
    var undisturbedTime = 0.0
    var started = false
    /// Second-order low-pass of (norm, dip, 0), used when `secondOrder`.
    var normDipLowPass: VectorLowPass

    /// - Parameter samplePeriod: nominal magnetometer sample period, s.
    public init(parameters p: RobustAttitudeFilterParameters, samplePeriod: Double) {
        enabled = p.magneticDisturbanceRejection
        normThreshold = p.magNormThreshold
        dipThreshold = p.magDipThreshold * .pi / 180
        currentTau = p.magCurrentTau
        referenceTau = p.magRefTau
        newTime = p.magNewTime
        newFirstTime = p.magNewFirstTime
        newMinGyro = p.magNewMinGyro * .pi / 180
        minUndisturbedTime = p.magMinUndisturbedTime
        maxRejectionTime = p.magMaxRejectionTime
        rejectionFactor = p.magRejectionFactor
        budgetGainFactor = p.magBudgetGainFactor
        secondOrder = p.magCurrentSecondOrder
        normDipLowPass = VectorLowPass(tau: p.magCurrentTau, samplePeriod: samplePeriod)
    }

    func matches(_ n: Double, _ d: Double, norm refN: Double, dip refD: Double) -> Bool {
        abs(n - refN) < normThreshold * refN && abs(d - refD) < dipThreshold
    }

    /// Feeds the field magnitude (µT), its dip angle in the earth frame (rad) and the rotation
    /// rate magnitude (rad/s). Returns the factor (0…1) on the heading gain for this sample:
    /// 0 rejects it.
    public mutating func update(fieldNorm: Double, fieldDip: Double, rotationRate: Double, dt: Double) -> Double {
        adoptedNewReference = false
        if secondOrder {
            let y = normDipLowPass.update(Vector3(fieldNorm, fieldDip, 0), dt: dt)
            norm = y.x
            dip = y.y
        } else if !started {
            norm = fieldNorm
            dip = fieldDip
            started = true
        } else {
            let k = firstOrderGain(tau: currentTau, dt: dt)
            norm += k * (fieldNorm - norm)
            dip += k * (fieldDip - dip)
        }
        let kRef = firstOrderGain(tau: referenceTau, dt: dt)
        let hasReference = referenceNorm > 0
        if hasReference {
            if matches(norm, dip, norm: referenceNorm, dip: referenceDip) {
                undisturbedTime += dt
                if undisturbedTime >= minUndisturbedTime {
                    isDisturbed = false
                    referenceNorm += kRef * (norm - referenceNorm)
                    referenceDip += kRef * (dip - referenceDip)
                }
            } else {
                undisturbedTime = 0
                isDisturbed = true
            }
        }
        // A candidate for a new reference.
        if candidateNorm <= 0 || !matches(norm, dip, norm: candidateNorm, dip: candidateDip) {
            candidateNorm = norm
            candidateDip = dip
            candidateTime = 0
        } else {
            candidateNorm += kRef * (norm - candidateNorm)
            candidateDip += kRef * (dip - candidateDip)
            if !hasReference {
                candidateTime += dt
                if candidateTime >= newFirstTime { adopt() }
            } else if isDisturbed {
                if rotationRate >= newMinGyro { candidateTime += dt }
                if candidateTime >= newTime { adopt() }
            } else {
                candidateTime = 0
            }
        }
        guard enabled, referenceNorm > 0 else { return 1 }
        if isDisturbed {
            if rejectionTime < maxRejectionTime {
                rejectionTime += dt
                return 0
            }
            return budgetGainFactor
        }
        rejectionTime = Swift.max(0, rejectionTime - rejectionFactor * dt)
        return 1
    }

    mutating func adopt() {
        referenceNorm = candidateNorm
        referenceDip = candidateDip
        candidateTime = 0
        isDisturbed = false
        undisturbedTime = minUndisturbedTime
        rejectionTime = 0
        adoptedNewReference = true
    }
}
