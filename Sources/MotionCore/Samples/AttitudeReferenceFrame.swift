/// Core Motion's `CMAttitudeReferenceFrame`: which earth-fixed frame an attitude is relative to.
/// Every frame has z vertical (up).
public enum AttitudeReferenceFrame: String, Sendable, CaseIterable, Hashable, BitwiseCopyable {
    /// x arbitrary in the horizontal plane (fixed at start), z up. Gyroscope + accelerometer only.
    case xArbitraryZVertical
    /// As `xArbitraryZVertical`, with the magnetometer used only to stop yaw drift.
    case xArbitraryCorrectedZVertical
    /// x towards magnetic north, y west, z up (NWU).
    case xMagneticNorthZVertical
    /// x towards true (geographic) north, z up. Needs the magnetic declination at a known location.
    case xTrueNorthZVertical

    /// Whether this frame needs a magnetometer.
    public var requiresMagnetometer: Bool { self != .xArbitraryZVertical }
}
