/// What a chip's motion-detection engine is set to, in the software any-motion detector's units
/// (`events.motion_threshold_ms2`, `AnyMotionConfiguration`), converted to register codes by the
/// driver (`MPU6050.motionThresholdCode`).
public struct MotionInterruptSettings: Sendable, Hashable {
    /// m/s²: high-passed acceleration on any axis above this counts as motion.
    public var thresholdMS2: Double
    /// Seconds the threshold must be exceeded before the interrupt is raised.
    public var duration: Double

    public init(thresholdMS2: Double, duration: Double) {
        self.thresholdMS2 = thresholdMS2
        self.duration = duration
    }
}
