import MotionCore

/// Cycling with the phone in a trouser pocket: the thigh swings about the hip's lateral axis at
/// the pedalling cadence (periodic gyroscope, smooth sinusoidal acceleration with no impacts),
/// on top of steady forward motion with gentle turns and road vibration.
public struct CyclingMotion: Sendable, Hashable {
    /// Pedal revolutions per second (1.33 Hz = 80 rpm).
    public var cadence = 1.33
    /// Mean thigh elevation above the horizontal and swing amplitude, rad.
    public var thighElevation = 15.0.radians
    public var thighSwing = 20.0.radians
    /// Distance of the pocket from the hip joint, m.
    public var pocketRadius = 0.12
    /// Forward speed, m/s.
    public var speed = 5.0
    /// Heading at the start (rad) and its gentle meander.
    public var initialHeading = -40.0.radians
    public var headingAmplitude = 30.0.radians
    public var headingPeriod = 45.0
    /// Device relative to the thigh frame (x right, y along the thigh towards the knee, z out of
    /// the thigh's upper surface): lying flat in the pocket, top towards the hip.
    public var mount = Attitude(roll: 8.0.radians, pitch: 0, yaw: .pi)
    /// Road vibration.
    public var vibration = VibrationProfile(band: 8...35, rms: 0.35, seed: 0xC7C1E)

    public init() {}

    var heading: MeanderingHeading {
        MeanderingHeading(initial: initialHeading, amplitude: headingAmplitude, period: headingPeriod)
    }

    private func thigh(at t: Double) -> (angle: Double, rate: Double, acceleration: Double) {
        let w = 2 * Double.pi * cadence
        let s = (w * t).sin
        return (thighElevation + thighSwing * s, thighSwing * w * (w * t).cos, -thighSwing * w * w * s)
    }
}

extension CyclingMotion: ScriptedMotion {
    var activity: SimulatedActivity { .cycling }

    func attitude(at t: Double) -> Quaternion {
        let body = Quaternion.aboutZ(heading.heading(at: t)) * Quaternion.aboutX(thigh(at: t).angle)
        return body * mount.quaternion
    }

    func linearAcceleration(at t: Double) -> Vector3 {
        // Pocket at r·(0, cos θ, sin θ) from the hip in the body frame; differentiate twice.
        let (theta, rate, acc) = thigh(at: t)
        let r = pocketRadius
        let tangential = Vector3(0, -theta.sin, theta.cos) * (r * acc)
        let radial = Vector3(0, theta.cos, theta.sin) * (-r * rate * rate)
        let pocketBody = tangential + radial
        let psi = heading.heading(at: t)
        let pocket = Quaternion.aboutZ(psi).rotate(pocketBody)
        let centripetal = HeadingFrame.right(psi) * (-speed * heading.rate(at: t))
        return pocket + centripetal + vibration.acceleration(at: t)
    }

    func steps(at t: Double) -> Int { 0 }
}
