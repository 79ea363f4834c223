/// A chip driver whose own motion engine (MPU-6050 motion detection, LSM6DSOX wake-up) shares the
/// data-ready INT pin: `I2CIMUSource` reads its interrupt source once per edge, before the sample
/// burst, to tell motion from data-ready (`IMUSample.Flags.chipMotion`).
public protocol MotionInterruptChip: AnyObject {
    /// Whether `configure` programmed the motion engine.
    var motionEngineEnabled: Bool { get }
    /// One read of the chip's interrupt source register (which the read clears): whether the
    /// motion engine fired since the last call. Allocation-free.
    func readMotionFlag() throws(SensorError) -> Bool
}

extension MPU6050: MotionInterruptChip {
    /// INT_STATUS bit 6 MOT_INT.
    public func readMotionFlag() throws(SensorError) -> Bool { try readInterruptStatus().motion }
}

extension LSM6DSx: MotionInterruptChip {
    /// WAKE_UP_SRC bit 3 WU_IA.
    public func readMotionFlag() throws(SensorError) -> Bool { try readWakeUpSource().wakeUp }
}
