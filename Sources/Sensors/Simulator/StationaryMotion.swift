import MotionCore

/// A device lying still at a fixed tilt: the sensors see only gravity, the earth field, bias
/// and noise.
public struct StationaryMotion: Sendable, Hashable {
    /// Orientation, sensor → ENU.
    public var attitude: Attitude

    /// Default: roll 10°, pitch −5°, yaw 30° (Core Motion Euler angles, ENU reference).
    public init(attitude: Attitude = Attitude(roll: 10.0.radians, pitch: -5.0.radians, yaw: 30.0.radians)) {
        self.attitude = attitude
    }
}

extension StationaryMotion: ScriptedMotion {
    var activity: SimulatedActivity { .stationary }
    func attitude(at t: Double) -> Quaternion { attitude.quaternion }
    func linearAcceleration(at t: Double) -> Vector3 { .zero }
    func steps(at t: Double) -> Int { 0 }
}
