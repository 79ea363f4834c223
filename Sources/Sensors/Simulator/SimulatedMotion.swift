import MotionCore

/// A scripted motion: analytic attitude and linear acceleration as functions of local time
/// (seconds since the motion began). Pure: no state, no allocation.
protocol ScriptedMotion: Sendable {
    var activity: SimulatedActivity { get }
    /// Orientation, sensor → ENU.
    func attitude(at t: Double) -> Quaternion
    /// Linear acceleration, m/s², ENU, gravity excluded.
    func linearAcceleration(at t: Double) -> Vector3
    /// Steps completed since local time 0.
    func steps(at t: Double) -> Int
}

/// One kind of scripted motion with its parameters.
public enum SimulatedMotion: Sendable, Hashable {
    case stationary(StationaryMotion)
    case rotation(RotationMotion)
    /// Walking or running (see `GaitMotion.activity`).
    case gait(GaitMotion)
    case cycling(CyclingMotion)
    case automotive(AutomotiveMotion)

    public var activity: SimulatedActivity {
        switch self {
        case .stationary(let m): m.activity
        case .rotation(let m): m.activity
        case .gait(let m): m.activity
        case .cycling(let m): m.activity
        case .automotive(let m): m.activity
        }
    }

    func attitude(at t: Double) -> Quaternion {
        switch self {
        case .stationary(let m): m.attitude(at: t)
        case .rotation(let m): m.attitude(at: t)
        case .gait(let m): m.attitude(at: t)
        case .cycling(let m): m.attitude(at: t)
        case .automotive(let m): m.attitude(at: t)
        }
    }

    func linearAcceleration(at t: Double) -> Vector3 {
        switch self {
        case .stationary(let m): m.linearAcceleration(at: t)
        case .rotation(let m): m.linearAcceleration(at: t)
        case .gait(let m): m.linearAcceleration(at: t)
        case .cycling(let m): m.linearAcceleration(at: t)
        case .automotive(let m): m.linearAcceleration(at: t)
        }
    }

    func steps(at t: Double) -> Int {
        switch self {
        case .gait(let m): m.steps(at: t)
        default: 0
        }
    }
}
