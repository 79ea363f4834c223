/// The axis conventions published attitude and device-frame vectors use.
///
/// - `coreMotion` (default): Core Motion's. World: north-referenced frames are x north, y west,
///   z up (NWU); the arbitrary frames have z up and x arbitrary. Device: the board's axes
///   (x right, y top/forward, z out of the face). Euler angles are Core Motion's (pitch about x,
///   roll about y, yaw about z).
/// - `enu`: robotics (ROS REP 103). World x east, y north, z up; body x forward (the board's +y),
///   y left (board −x), z up (board +z). Euler angles are Z-Y-X Tait–Bryan: roll about body x,
///   pitch about body y, yaw about world z from east, counter-clockwise.
/// - `ned`: aerospace. World x north, y east, z down; body x forward (board +y), y right
///   (board +x), z down (board −z). Z-Y-X Tait–Bryan: yaw clockwise from north.
///
/// In the arbitrary-heading frames "north" is Core Motion's arbitrary x axis: the heading of an
/// ENU/NED attitude is then just as arbitrary. The heading field (degrees from north) and units
/// (g, rad/s, µT) do not change.
public enum OutputFrame: String, Sendable, Hashable, CaseIterable, BitwiseCopyable {
    case coreMotion = "core_motion"
    case enu
    case ned

    /// Core Motion world (NWU) → this frame's world.
    @inlinable var world: Quaternion {
        switch self {
        case .coreMotion: return .identity
        case .enu: return Quaternion(w: 0.5.squareRoot(), x: 0, y: 0, z: 0.5.squareRoot())   // +90° about z
        case .ned: return Quaternion(w: 0, x: 1, y: 0, z: 0)                                // 180° about x
        }
    }

    /// Board axes → this frame's body axes.
    @inlinable var body: Quaternion {
        switch self {
        case .coreMotion: return .identity
        case .enu: return Quaternion(w: 0.5.squareRoot(), x: 0, y: 0, z: -(0.5.squareRoot()))  // −90° about z
        case .ned: return Quaternion(w: 0, x: 0.5.squareRoot(), y: 0.5.squareRoot(), z: 0)    // 180° about (1,1,0)/√2
        }
    }

    /// A Core Motion attitude (board → Core Motion world) as body → this frame's world.
    @inlinable public func attitude(_ q: Quaternion) -> Quaternion {
        self == .coreMotion ? q : (world * q * body.conjugate).normalized
    }

    /// A board-axis vector (gravity, user acceleration, rotation rate, field, bias) in body axes.
    @inlinable public func vector(_ v: Vector3) -> Vector3 {
        switch self {
        case .coreMotion: return v
        case .enu: return Vector3(v.y, -v.x, v.z)
        case .ned: return Vector3(v.y, v.x, -v.z)
        }
    }

    /// Euler angles (rad) of an attitude already in this frame: Core Motion's for `coreMotion`,
    /// Z-Y-X Tait–Bryan (roll about x, pitch about y, yaw about z) otherwise.
    @inlinable public func eulerAngles(_ q: Quaternion) -> (roll: Double, pitch: Double, yaw: Double) {
        if self == .coreMotion {
            let a = Attitude(quaternion: q)
            return (a.roll, a.pitch, a.yaw)
        }
        let roll = Double.atan2(2 * (q.w * q.x + q.y * q.z), 1 - 2 * (q.x * q.x + q.y * q.y))
        let s = max(-1, min(1, 2 * (q.w * q.y - q.z * q.x)))
        let yaw = Double.atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z))
        return (roll, s.asin, yaw)
    }
}
