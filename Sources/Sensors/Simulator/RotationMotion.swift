import MotionCore

/// A device turned in the hand by a standing person: smooth multi-axis rotation (sines on roll
/// and pitch, a slow yaw sweep) interrupted by still periods, with no translation.
public struct RotationMotion: Sendable, Hashable {
    /// Roll amplitude (rad) and frequency (Hz).
    public var rollAmplitude = 45.0.radians
    public var rollFrequency = 0.08
    /// Pitch amplitude (rad) and frequency (Hz).
    public var pitchAmplitude = 30.0.radians
    public var pitchFrequency = 0.11
    /// Yaw sweep amplitude (rad) and frequency (Hz) around `initialYaw`.
    public var yawAmplitude = 120.0.radians
    public var yawFrequency = 0.03
    public var initialYaw = 20.0.radians
    /// Each `period` seconds starts with `still` seconds without motion (1 s cosine ramps).
    public var period = 30.0
    public var still = 6.0

    public init() {}
}

extension RotationMotion: ScriptedMotion {
    var activity: SimulatedActivity { .unknown }

    private var gate: MotionGate { MotionGate(period: period, still: still, ramp: 1) }

    func attitude(at t: Double) -> Quaternion {
        let tau = gate.motionTime(at: t)
        let roll = rollAmplitude * (2 * Double.pi * rollFrequency * tau).sin
        let pitch = pitchAmplitude * (2 * Double.pi * pitchFrequency * tau + 0.5).sin
        let yaw = initialYaw + yawAmplitude * (2 * Double.pi * yawFrequency * tau).sin
        return Attitude(roll: roll, pitch: pitch, yaw: yaw).quaternion
    }

    func linearAcceleration(at t: Double) -> Vector3 { .zero }
    func steps(at t: Double) -> Int { 0 }
}
