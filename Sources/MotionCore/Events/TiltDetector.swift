/// One named tilt threshold: a binary state that turns on when the tilt from the zero pose
/// exceeds `onAbove` degrees for `onDwell` seconds and off when it is below `offBelow` degrees
/// for `offDwell` seconds (`door: open when tilt > 60° for 1 s, closed below 20°`).
public struct TiltThreshold: Sendable, Equatable {
    /// The name in config, topics and Home Assistant (`door`).
    public var name: String
    /// Degrees from the zero pose above which the state turns on.
    public var onAbove: Double
    /// Degrees below which it turns off (≤ `onAbove`).
    public var offBelow: Double
    /// Seconds the tilt must stay above `onAbove` before the state turns on.
    public var onDwell: Double
    /// Seconds the tilt must stay below `offBelow` before the state turns off.
    public var offDwell: Double
    /// What the states are called (`open`/`closed`); `on`/`off` by default.
    public var onName: String
    public var offName: String

    public init(name: String, onAbove: Double, offBelow: Double, onDwell: Double = 1, offDwell: Double = 1,
                onName: String = "on", offName: String = "off") {
        self.name = name
        self.onAbove = onAbove
        self.offBelow = offBelow
        self.onDwell = onDwell
        self.offDwell = offDwell
        self.onName = onName
        self.offName = offName
    }
}

/// Tilt from vertical and roll/pitch relative to a stored *zero* pose, from the accelerometer.
///
/// Frames and units: input specific force in m/s², sensor frame (+9.81 on the axis pointing up
/// at rest). The "up" direction is the low-passed specific force (second-order Butterworth at
/// `cutoff` Hz per axis), normalised. The zero pose is an up-vector in the sensor frame
/// (`(0, 0, 1)`, z up, until `setZero()`). Outputs in degrees:
/// - `tilt`: angle between up and the zero pose's up, 0…180°.
/// - `roll`, `pitch`: up expressed in the zero frame (z = zero up, x = the sensor x axis
///   projected on the zero pose's horizontal plane, y = z × x), then Core Motion's Euler angles
///   (`Attitude.rollAndPitch(up:)`, the same convention as `summary` and `motion`): **pitch**
///   about x, positive when the +y (top) edge rises, −90…90°; **roll** about y, positive when
///   the +x (right) edge goes down, −180…180°.
///
/// During strong linear acceleration the up estimate follows the acceleration; the thresholds'
/// dwell keeps a short swing from flipping them.
public struct TiltDetector: Sendable {
    public private(set) var thresholds: [HysteresisSwitch]
    private var fx: Biquad, fy: Biquad, fz: Biquad
    private var primed = false
    /// Unit up-vector of the zero pose, sensor frame.
    public private(set) var zero = Vector3(0, 0, 1)
    private var e1 = Vector3(1, 0, 0), e2 = Vector3(0, 1, 0)
    /// The newest unit up-vector (sensor frame), `.zero` before the first sample.
    public private(set) var up = Vector3.zero
    /// Degrees from the zero pose.
    public private(set) var tilt = 0.0
    /// Core Motion roll from the zero pose, degrees: about the zero frame's y axis, positive
    /// when the +x edge goes down.
    public private(set) var roll = 0.0
    /// Core Motion pitch from the zero pose, degrees: about the zero frame's x axis, positive
    /// when the +y edge rises.
    public private(set) var pitch = 0.0

    /// `sampleRate` in Hz; `cutoff` in Hz (clamped below Nyquist).
    public init(thresholds: [TiltThreshold] = [], sampleRate: Double, cutoff: Double = 2) {
        let c = Swift.min(cutoff, 0.4 * sampleRate)
        fx = .lowPass(cutoff: c, rate: sampleRate)
        fy = fx
        fz = fx
        self.thresholds = thresholds.map {
            HysteresisSwitch(onAbove: $0.onAbove, offBelow: $0.offBelow, onDwell: $0.onDwell, offDwell: $0.offDwell)
        }
    }

    /// Sets the zero pose to the current up-vector ("set level"). Returns it (persist it).
    @discardableResult
    public mutating func setZero() -> Vector3 {
        if up != .zero { setZero(up) }
        return zero
    }

    /// Sets the zero pose to `up` (sensor frame; normalised here). A zero vector is ignored.
    public mutating func setZero(_ vector: Vector3) {
        let z = vector.normalized
        guard z != .zero else { return }
        zero = z
        var x = Vector3(1, 0, 0) - z * z.x
        if x.norm < 1e-3 { x = Vector3(0, 1, 0) - z * z.y }
        e1 = x.normalized
        e2 = zero.cross(e1)
        if up != .zero { measure() }
    }

    /// Restores the states of the thresholds without events (after a restart).
    public mutating func restore(states: [Bool]) {
        for i in thresholds.indices where i < states.count { thresholds[i].reset(on: states[i]) }
    }

    /// Feeds one accelerometer sample (m/s², sensor frame) at `time` (s); calls `emit` for each
    /// threshold that changes.
    public mutating func update(specificForce f: Vector3, time: Double, emit: (MotionEvent) -> Void) {
        filter(f)
        for i in thresholds.indices {
            if let on = thresholds[i].update(tilt, at: time) {
                var e = MotionEvent(type: .tiltThreshold, time: time, onset: thresholds[i].onsetOfLastChange)
                e.index = i
                e.state = on
                e.angle = tilt
                emit(e)
            }
        }
    }

    private mutating func filter(_ f: Vector3) {
        if !primed {
            fx.prime(f.x); fy.prime(f.y); fz.prime(f.z)
            primed = true
        }
        let g = Vector3(fx(f.x), fy(f.y), fz(f.z))
        let u = g.normalized
        guard u != .zero else { return }
        up = u
        measure()
    }

    private mutating func measure() {
        let c = up.dot(zero)
        tilt = c.acos.degrees
        let angles = Attitude.rollAndPitch(up: Vector3(up.dot(e1), up.dot(e2), c))
        roll = angles.roll.degrees
        pitch = angles.pitch.degrees
    }
}
