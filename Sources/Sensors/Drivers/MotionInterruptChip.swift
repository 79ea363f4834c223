import MotionCore

/// A chip driver whose own event engines (MPU-6050 motion detection; LSM6DSOX wake-up, free-fall,
/// single and double tap, 6D orientation; BMI160 any-motion, low-g, single and double tap) report
/// through the data-ready INT pin's edges: `I2CIMUSource` reads the chip's interrupt source once
/// per edge, before the sample burst, and sets the chip flags it reports on that sample (`IMUSample.Flags.chipMotion`, `.chipFreeFall`, `.chipTap`, `.chipDoubleTap`, `.chipOrientation` with `chipFace`).
public protocol MotionInterruptChip: AnyObject {
    /// The chip flags of the engines `configure` programmed (empty: none, nothing to read per edge).
    var chipEvents: IMUSample.Flags { get }
    /// One read of the chip's interrupt source register(s) (which the read clears on the MPU-6050
    /// and LSM6DSOX; the BMI160's follow its latch): the chip
    /// flags of the engines that fired since the last call, within `chipEvents`. Allocation-free.
    func readChipEvents() throws(SensorError) -> IMUSample.Flags
}

extension MotionInterruptChip {
    /// Whether the motion engine fired since the last read (one `readChipEvents`).
    public func readMotionFlag() throws(SensorError) -> Bool { try readChipEvents().contains(.chipMotion) }
}

extension MPU6050: MotionInterruptChip {
    /// `.chipMotion` when `configure` programmed motion detection.
    public var chipEvents: IMUSample.Flags { motionEngineEnabled ? .chipMotion : [] }
    /// INT_STATUS bit 6 MOT_INT.
    public func readChipEvents() throws(SensorError) -> IMUSample.Flags {
        try readInterruptStatus().motion ? .chipMotion : IMUSample.Flags(rawValue: 0)
    }
}

/// LSM6DSOX: `LSM6DSx+EventEngines.swift` (WAKE_UP_SRC, TAP_SRC and D6D_SRC in one burst).
extension LSM6DSx: MotionInterruptChip {}

/// BMI160: `BMI160+EventEngines.swift` (INT_STATUS_0 and INT_STATUS_1 in one burst; the engines
/// on INT2 with its output off, INT1 data-ready only).
extension BMI160: MotionInterruptChip {}
