/// Settings of `AnyMotionDetector`.
public struct AnyMotionConfiguration: Sendable, Equatable, BitwiseCopyable {
    /// m/s²: a sample moves when its specific force differs from the slow gravity estimate by
    /// more than this (0.3 m/s² ≈ 0.03 g, some ten times a MEMS accelerometer's noise).
    public var accelerationThreshold = 0.3
    /// rad/s: or when its rotation rate, less the gyro bias learnt at rest, exceeds this (≈ 6°/s).
    public var rotationThreshold = 0.1
    /// Seconds of moving samples (with gaps under `stationaryDuration`) before `motion` fires.
    public var motionDuration = 0.1
    /// Seconds without a moving sample before the device counts as stationary again.
    public var stationaryDuration = 2.0
    /// Seconds of continuous motion for the one-shot `significant_motion` (re-armed at rest).
    public var significantDuration = 5.0
    /// Seconds, time constant of the slow gravity estimate.
    public var gravityTimeConstant = 1.0
    public init() {}
}

/// Any-motion, significant motion and stationary-for, from accelerometer and (optional) gyro.
///
/// A sample *moves* when |f − g̃| > `accelerationThreshold` (f the specific force in m/s², g̃ an
/// exponential average with `gravityTimeConstant`) or |ω − b| > `rotationThreshold` (ω rad/s,
/// b the gyro average learnt while stationary, time constant 10 s). Sensor frame throughout.
/// `motion` fires when moving samples have lasted `motionDuration`; `stationary` after
/// `stationaryDuration` s without one; `significant_motion` once per rest-to-motion episode
/// after `significantDuration` s of continuous motion.
public struct AnyMotionDetector: Sendable {
    public var configuration: AnyMotionConfiguration
    private var gravity = Vector3.zero
    private var bias = Vector3.zero
    private var lastTime = Double.nan
    private var firstMoving = Double.nan
    private var lastMoving = -Double.infinity
    private var significantArmed = true
    /// Whether the device is moving (after `motion`, until `stationary`).
    public private(set) var isMoving = false
    /// When the current motion episode began (s), `nan` at rest.
    public private(set) var motionOnset = Double.nan
    /// Whether the newest sample moved.
    public private(set) var sampleMoved = false
    /// When the last moving sample was (s); −∞ if none.
    public var lastMovingTime: Double { lastMoving }

    public init(configuration: AnyMotionConfiguration = AnyMotionConfiguration()) {
        self.configuration = configuration
    }

    /// Seconds the device has been stationary at `time` (0 while moving).
    public func stationaryFor(at time: Double) -> Double {
        isMoving ? 0 : (lastMoving.isFinite ? time - lastMoving : time - startTime)
    }
    private var startTime = 0.0

    /// One sample: specific force m/s², rotation rate rad/s (or `nil`), both sensor frame.
    public mutating func update(specificForce f: Vector3, rotationRate w: Vector3?, time: Double,
                                emit: (MotionEvent) -> Void) {
        let c = configuration
        if lastTime.isNaN {
            gravity = f
            bias = w ?? .zero
            startTime = time
            lastTime = time
            return
        }
        let dt = Swift.max(0, Swift.min(time - lastTime, 1))
        lastTime = time
        var moved = (f - gravity).norm > c.accelerationThreshold
        if let w, (w - bias).norm > c.rotationThreshold { moved = true }
        sampleMoved = moved
        let a = dt / (c.gravityTimeConstant + dt)
        gravity += (f - gravity) * a
        if let w, !moved, !isMoving {
            bias += (w - bias) * (dt / (10 + dt))
        }
        if moved {
            if firstMoving.isNaN || time - lastMoving > c.stationaryDuration { firstMoving = time }
            lastMoving = time
            if !isMoving, time - firstMoving >= c.motionDuration - 1e-9 {
                isMoving = true
                motionOnset = firstMoving
                emit(MotionEvent(type: .motion, time: time, onset: firstMoving))
            }
        }
        if isMoving {
            if significantArmed, time - motionOnset >= c.significantDuration, time - lastMoving < c.stationaryDuration {
                significantArmed = false
                emit(MotionEvent(type: .significantMotion, time: time, onset: motionOnset))
            }
            if time - lastMoving >= c.stationaryDuration {
                isMoving = false
                significantArmed = true
                var e = MotionEvent(type: .stationary, time: time, onset: lastMoving)
                e.duration = time - lastMoving
                emit(e)
                motionOnset = .nan
                firstMoving = .nan
            }
        }
    }
}
