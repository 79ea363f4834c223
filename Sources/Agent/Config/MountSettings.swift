import MotionCore

/// `source.mount:` — how the sensor chips sit on the board (chip-to-board rotations, applied to
/// every raw sample before fusion; docs/hardware.md, Mounting).
///
/// ```yaml
/// source:
///   mount:
///     accel_gyro: {x: -y, y: x, z: z}          # axis remap: board x = chip −y, …
///     magnetometer: [[0, 1, 0], [-1, 0, 0], [0, 0, 1]]   # or a 3×3 rotation matrix (rows)
/// ```
/// Either may also be `learned` (the rotation `edgemotion mount learn` / `cmd/mount` stored in
/// the state directory) or `identity`.
public struct MountSettings: Sendable, Equatable {
    /// One sensor's rotation as configured.
    public enum Rotation: Sendable, Equatable {
        /// Given in the file (remap, matrix or `identity`).
        case fixed(SensorMount)
        /// The learned one from `<state_directory>/edgemotion-mount.txt` (identity until learned).
        case learned
    }

    /// `accel_gyro`: accelerometer and gyroscope. `nil` (absent): the learned mount when one has
    /// been learned, else identity.
    public var inertial: Rotation?
    /// `magnetometer`. `nil` (absent): the same as `accel_gyro`.
    public var magnetometer: Rotation?

    public init(inertial: Rotation? = nil, magnetometer: Rotation? = nil) {
        self.inertial = inertial
        self.magnetometer = magnetometer
    }

    /// Whether a learned mount (file) takes part: `accel_gyro` learned or absent.
    public var usesLearned: Bool {
        switch inertial {
        case nil, .learned?: return true
        case .fixed?: return magnetometer == .learned
        }
    }

    /// Whether `mount learn` may replace the accelerometer/gyroscope rotation (not fixed in the file).
    public var canLearn: Bool {
        if case .fixed? = inertial { return false }
        return true
    }

    /// The rotations to apply, given the learned one (`nil`: none learned yet).
    public func resolved(learned: SensorMount?) -> IMUMount {
        let l = learned ?? .identity
        func pick(_ r: Rotation?) -> SensorMount {
            switch r {
            case .fixed(let m)?: return m
            case .learned?, nil: return l
            }
        }
        let inertialMount = pick(inertial)
        let magnetometerMount = magnetometer == nil ? inertialMount : pick(magnetometer)
        return IMUMount(inertial: inertialMount, magnetometer: magnetometerMount)
    }

    /// Where the applied rotations come from, as `meta` reports it (`mount.source`).
    public enum Origin: String, Sendable {
        /// A learned rotation (`edgemotion-mount.txt`) is applied to at least one sensor.
        case learned
        /// No learned rotation takes part and at least one configured rotation is not the identity.
        case config
        /// Nothing rotates: both rotations are the identity (nothing configured or learned).
        case identity
    }

    /// The origin of `resolved(learned:)` for the same `learned`.
    public func origin(learned: SensorMount?) -> Origin {
        if learned != nil, inertial == nil || inertial == .learned || magnetometer == .learned { return .learned }
        return resolved(learned: nil).isIdentity ? .identity : .config
    }

    /// Where the learned mount is kept.
    public static func learnedPath(stateDirectory: String) -> String { stateDirectory + "/edgemotion-mount.txt" }
}
