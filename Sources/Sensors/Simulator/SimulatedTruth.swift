import MotionCore

/// What the simulated person is doing; the raw values are the labels of the shared activity
/// data set (`../shared/data/activity`).
public enum SimulatedActivity: String, Sendable, Hashable, CaseIterable {
    case stationary
    case walking
    case running
    case cycling
    case automotive
    /// Motion that is none of the above (the device is turned in the hand while the person stands).
    case unknown
}

/// The exact state of the simulated device at one instant: what an ideal, noise-free estimator
/// would report.
public struct SimulatedTruth: Sendable, Hashable {
    /// Seconds since the simulation started (sample `i` is at `i / rate`).
    public var time: Double
    /// Orientation, unit quaternion rotating sensor-frame vectors into ENU (x east, y north = the
    /// direction of the horizontal magnetic field, z up).
    public var attitude: Quaternion
    /// Angular velocity in rad/s, sensor frame (what a perfect, unbiased gyroscope reads).
    public var angularVelocity: Vector3
    /// Linear (user) acceleration of the device in m/s², ENU, gravity excluded.
    public var linearAcceleration: Vector3
    /// Specific force in m/s², sensor frame, noise-free (what a perfect accelerometer reads).
    public var specificForce: Vector3
    /// Earth field in µT, sensor frame, noise-free.
    public var magneticField: Vector3
    /// The activity of the segment the instant belongs to.
    public var activity: SimulatedActivity
    /// Steps taken since the simulation started (walking and running segments count steps).
    public var steps: Int
    /// Index of the scenario segment the instant belongs to.
    public var segment: Int

    public init(
        time: Double, attitude: Quaternion, angularVelocity: Vector3, linearAcceleration: Vector3,
        specificForce: Vector3, magneticField: Vector3, activity: SimulatedActivity, steps: Int, segment: Int
    ) {
        self.time = time
        self.attitude = attitude
        self.angularVelocity = angularVelocity
        self.linearAcceleration = linearAcceleration
        self.specificForce = specificForce
        self.magneticField = magneticField
        self.activity = activity
        self.steps = steps
        self.segment = segment
    }

    /// The attitude as Core Motion's `Attitude` (ENU reference).
    public var attitudeENU: Attitude { Attitude(quaternion: attitude) }

    /// Linear acceleration in m/s², sensor frame (`q* ⊗ a ⊗ q`).
    public var sensorFrameLinearAcceleration: Vector3 { attitude.inverseRotate(linearAcceleration) }

    /// Unit "up" in the sensor frame (the direction of gravity's reaction, `q* ⊗ ẑ ⊗ q`).
    public var sensorFrameUp: Vector3 { attitude.inverseRotate(Vector3(0, 0, 1)) }

    /// Heading of the device's y axis in degrees clockwise from magnetic north, 0–360
    /// (Core Motion's `heading` in the north-referenced frames).
    public var heading: Double {
        let top = attitude.rotate(Vector3(0, 1, 0))
        let h = Double.atan2(top.x, top.y).degrees
        return h < 0 ? h + 360 : h
    }
}
