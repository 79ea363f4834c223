import MotionCore

/// Walking or running: a periodic vertical bounce at the step frequency (with impact harmonics),
/// fore-aft surge at the step frequency, lateral sway at half of it, small trunk oscillations,
/// and a slowly meandering heading at constant forward speed. The device is carried at a fixed
/// `mount` orientation relative to the walker's body frame (x right, y forward, z up).
public struct GaitMotion: Sendable, Hashable {
    /// `.walking` or `.running` (the label reported as truth).
    public var activity: SimulatedActivity
    /// Steps per second (both feet counted).
    public var cadence: Double
    /// Vertical acceleration amplitude at the step frequency, in g.
    public var bounce: Double
    /// Second and third harmonic amplitudes of the vertical acceleration, in g (heel strike).
    public var secondHarmonic: Double
    public var thirdHarmonic: Double
    /// Fore-aft acceleration amplitude at the step frequency, in g.
    public var surge: Double
    /// Lateral acceleration amplitude at half the step frequency, in g.
    public var sway: Double
    /// Forward speed, m/s.
    public var speed: Double
    /// Trunk pitch (at step frequency), roll and yaw (at half step frequency) amplitudes, rad.
    public var pitchOscillation: Double
    public var rollOscillation: Double
    public var yawOscillation: Double
    /// Heading at the start (rad, counter-clockwise from north) and its slow meander.
    public var initialHeading: Double
    public var headingAmplitude: Double
    public var headingPeriod: Double
    /// Orientation of the device relative to the body frame (sensor → body).
    public var mount: Attitude
    /// Slow cadence modulation: the step rate is `cadence · (1 + cadenceVariation · sin(2π t / cadenceVariationPeriod))`
    /// (0 by default: perfectly regular steps). Truth steps follow the modulated phase.
    public var cadenceVariation = 0.0
    public var cadenceVariationPeriod = 17.0

    public init(
        activity: SimulatedActivity, cadence: Double, bounce: Double, secondHarmonic: Double,
        thirdHarmonic: Double, surge: Double, sway: Double, speed: Double, pitchOscillation: Double,
        rollOscillation: Double, yawOscillation: Double, initialHeading: Double = 30.0.radians,
        headingAmplitude: Double = 25.0.radians, headingPeriod: Double = 60, mount: Attitude
    ) {
        self.activity = activity
        self.cadence = cadence
        self.bounce = bounce
        self.secondHarmonic = secondHarmonic
        self.thirdHarmonic = thirdHarmonic
        self.surge = surge
        self.sway = sway
        self.speed = speed
        self.pitchOscillation = pitchOscillation
        self.rollOscillation = rollOscillation
        self.yawOscillation = yawOscillation
        self.initialHeading = initialHeading
        self.headingAmplitude = headingAmplitude
        self.headingPeriod = headingPeriod
        self.mount = mount
    }

    /// Walking at 1.9 steps/s, ±0.25 g bounce, 1.4 m/s, phone held in the hand in front of the
    /// body (screen up, tilted 35° towards the face).
    public static func walking(cadence: Double = 1.9, bounce: Double = 0.25) -> GaitMotion {
        GaitMotion(
            activity: .walking, cadence: cadence, bounce: bounce, secondHarmonic: 0.28 * bounce,
            thirdHarmonic: 0, surge: 0.12, sway: 0.07, speed: 1.4,
            pitchOscillation: 2.0.radians, rollOscillation: 3.0.radians, yawOscillation: 3.0.radians,
            mount: Attitude(roll: 5.0.radians, pitch: 35.0.radians, yaw: 0))
    }

    /// Running at 2.8 steps/s, vertical ±~1 g with impact harmonics, 3 m/s, phone upright in a
    /// waist/arm holder (screen facing backwards, slightly rolled).
    public static func running(cadence: Double = 2.8, bounce: Double = 0.8) -> GaitMotion {
        GaitMotion(
            activity: .running, cadence: cadence, bounce: bounce, secondHarmonic: 0.375 * bounce,
            thirdHarmonic: 0.125 * bounce, surge: 0.3, sway: 0.1, speed: 3.0,
            pitchOscillation: 4.0.radians, rollOscillation: 4.0.radians, yawOscillation: 5.0.radians,
            mount: Attitude(roll: 10.0.radians, pitch: 80.0.radians, yaw: 0))
    }

    var heading: MeanderingHeading {
        MeanderingHeading(initial: initialHeading, amplitude: headingAmplitude, period: headingPeriod)
    }
}

extension GaitMotion: ScriptedMotion {
    /// Steps elapsed since local time 0 (fractional): the integral of the modulated cadence.
    func stepPhase(at t: Double) -> Double {
        guard cadenceVariation != 0 else { return cadence * t }
        let w = 2 * Double.pi / cadenceVariationPeriod
        return cadence * (t + cadenceVariation / w * (1 - (w * t).cos))
    }

    func attitude(at t: Double) -> Quaternion {
        let theta = 2 * Double.pi * stepPhase(at: t)
        let body = Attitude(
            roll: rollOscillation * (theta / 2).sin,
            pitch: pitchOscillation * (theta + 0.6).sin,
            yaw: heading.heading(at: t) + yawOscillation * (theta / 2 + 1.2).sin)
        return body.quaternion * mount.quaternion
    }

    func linearAcceleration(at t: Double) -> Vector3 {
        let g = standardGravity
        let theta = 2 * Double.pi * stepPhase(at: t)
        let psi = heading.heading(at: t)
        let vertical = g * (bounce * theta.cos + secondHarmonic * (2 * theta + 0.4).cos
                            + thirdHarmonic * (3 * theta + 0.8).cos)
        let forward = g * surge * (theta + 0.9).sin
        // Centripetal acceleration of the meandering path points left (−right) for ψ̇ > 0.
        let lateral = g * sway * (theta / 2).sin - speed * heading.rate(at: t)
        return HeadingFrame.forward(psi) * forward + HeadingFrame.right(psi) * lateral + Vector3(0, 0, vertical)
    }

    /// One step per vertical-acceleration period; a step completes at each bounce peak.
    func steps(at t: Double) -> Int { t > 0 ? Int(stepPhase(at: t).rounded(.down)) : 0 }
}
