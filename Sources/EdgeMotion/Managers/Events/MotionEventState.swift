import MotionCore

/// The current state of a device's motion-event detectors, taken once per vibration window
/// (1 s by default) on the processing thread. A plain value (the pull property and the state
/// handler pass it without allocation).
public struct MotionEventState: Sendable, BitwiseCopyable {
    /// Sample time of the snapshot, s (CLOCK_MONOTONIC).
    public var time: Double
    /// Degrees from the zero pose.
    public var tilt: Double
    /// Core Motion roll in the zero frame, degrees: about y, positive when the +x edge goes down
    /// (`TiltDetector.roll`).
    public var roll: Double
    /// Core Motion pitch in the zero frame, degrees: about x, positive when the +y edge rises
    /// (`TiltDetector.pitch`).
    public var pitch: Double
    /// Unit up-vector in the sensor frame (persist it as the zero pose after "set level").
    public var up: Vector3
    /// The zero pose's up-vector, sensor frame.
    public var zero: Vector3
    /// Whether the device is moving (any-motion), and for how long it has been still, s.
    public var moving: Bool
    public var stationaryFor: Double
    /// The newest vibration reading (`nil` before the first window).
    public var vibration: VibrationReading?
    /// Bit i: tilt threshold i is on (configuration order; at most 64).
    public var thresholdBits: UInt64
    public var thresholdCount: Int
    public var tamperArmed: Bool

    /// Whether tilt threshold `index` is on.
    public func threshold(_ index: Int) -> Bool { index < 64 && thresholdBits & (1 << UInt64(index)) != 0 }
}
