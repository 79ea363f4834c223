import MotionCore

/// A phone in a dashboard holder during a repeating urban drive cycle: a stop, accelerations of
/// up to 0.2 g over seconds, two 45° turns (yaw rate plus centripetal acceleration), braking to a
/// second stop; engine and road vibration throughout (stronger with speed), a little body pitch
/// and roll; road vibration and body bounce below the activity detector's 12.5 Hz Nyquist limit.
/// Stops stay labelled `.automotive` (the person is still in the car).
public struct AutomotiveMotion: Sendable, Hashable {
    /// Length of one drive cycle, s. Cycles repeat; speed and heading return to their start.
    public var cyclePeriod = 100.0
    /// Peak longitudinal acceleration of the main speed-up and braking, m/s².
    public var peakAcceleration = 0.2 * standardGravity
    /// Heading at the start, rad.
    public var initialHeading = 60.0.radians
    /// Device relative to the car (x right, y forward, z up): portrait, screen towards the driver,
    /// leaning back 15°, turned 8°.
    public var mount = Attitude(roll: 0, pitch: 75.0.radians, yaw: -8.0.radians)
    /// Engine vibration at idle: firing frequency of a four-cylinder at 600–900 rpm (mostly
    /// averaged away at the activity detector's 25 Hz; a stopped car looks still).
    public var engineVibration = VibrationProfile(band: 20...30, rms: 0.1, count: 6, verticalShare: 0.5, seed: 0xE1E)
    /// Road vibration reaching a dashboard holder, growing with speed (rms per 15 m/s): wheel hop
    /// and holder/dashboard resonances at 4–20 Hz, broadband — what a mounted phone shows below
    /// 12.5 Hz in the real car recordings (`../shared/data/activity/driver_behavior`).
    public var roadVibration = VibrationProfile(band: 4...20, rms: 0.5, count: 16, seed: 0x20AD)
    /// Body bounce and pitch of the sprung mass on the suspension, 1–2.5 Hz, mostly vertical
    /// (rms per 15 m/s).
    public var bodyMotion = VibrationProfile(band: 1...2.5, rms: 0.15, count: 4, verticalShare: 0.85, seed: 0xB0D1)
    /// Body pitch per m/s² of longitudinal acceleration and roll per m/s² of lateral acceleration, rad.
    public var pitchPerAcceleration = 0.004
    public var rollPerAcceleration = 0.006

    public init() {}

    /// Longitudinal acceleration pulses (m/s² peak) within one cycle; they sum to zero speed
    /// change: pull away (+9.8 m/s), speed up (+3.9), slow down (−3.9), brake to a stop at 82 s.
    /// Returned as a tuple, not an array, so evaluating the motion never allocates.
    var speedPulses: (SinePulse, SinePulse, SinePulse, SinePulse) {
        let a = peakAcceleration
        return (SinePulse(start: 5, duration: 10, peak: a), SinePulse(start: 20, duration: 8, peak: a / 2),
                SinePulse(start: 60, duration: 8, peak: -a / 2), SinePulse(start: 72, duration: 10, peak: -a))
    }

    /// Yaw-rate pulses (rad/s peak) within one cycle: a 45° left turn and a 45° right turn.
    var turnPulses: (SinePulse, SinePulse) {
        let turn = 45.0.radians
        return (SinePulse(start: 32, duration: 10, peak: 2 * turn / 10),
                SinePulse(start: 46, duration: 10, peak: -2 * turn / 10))
    }

    struct State {
        var speed: Double
        var acceleration: Double
        var heading: Double
        var yawRate: Double
    }

    func state(at t: Double) -> State {
        let u = t - (t / cyclePeriod).rounded(.down) * cyclePeriod
        var s = State(speed: 0, acceleration: 0, heading: initialHeading, yawRate: 0)
        let (p0, p1, p2, p3) = speedPulses
        s.speed = p0.integral(at: u) + p1.integral(at: u) + p2.integral(at: u) + p3.integral(at: u)
        s.acceleration = p0.value(at: u) + p1.value(at: u) + p2.value(at: u) + p3.value(at: u)
        let (left, right) = turnPulses
        s.heading += left.integral(at: u) + right.integral(at: u)
        s.yawRate = left.value(at: u) + right.value(at: u)
        s.speed = Swift.max(0, s.speed)
        return s
    }
}

extension AutomotiveMotion: ScriptedMotion {
    var activity: SimulatedActivity { .automotive }

    func attitude(at t: Double) -> Quaternion {
        let s = state(at: t)
        let lateralLeft = s.speed * s.yawRate
        let body = Quaternion.aboutZ(s.heading) * Quaternion.aboutX(pitchPerAcceleration * s.acceleration)
            * Quaternion.aboutY(rollPerAcceleration * lateralLeft)
        return body * mount.quaternion
    }

    func linearAcceleration(at t: Double) -> Vector3 {
        let s = state(at: t)
        let motion = HeadingFrame.forward(s.heading) * s.acceleration
            + HeadingFrame.right(s.heading) * (-s.speed * s.yawRate)
        let roadShare = Swift.min(1.5, s.speed / 15)
        return motion + engineVibration.acceleration(at: t)
            + (roadVibration.acceleration(at: t) + bodyMotion.acceleration(at: t)) * roadShare
    }

    func steps(at t: Double) -> Int { 0 }
}
