/// One raw reading of the inertial sensors, as it travels through the `SampleRing`.
///
/// A plain value (`BitwiseCopyable`, no references) so that the ring can copy it without
/// retain/release or allocation. Values are SI and in the **sensor frame**, after the source has
/// applied scale, offset and mount matrix, but before calibration:
/// - `specificForce`: what an accelerometer measures, m/s² (+9.81 on the axis pointing up at
///   rest; the Linux IIO convention). The public `Acceleration` type converts to Core Motion's g.
/// - `rotationRate`: rad/s, not bias-corrected.
/// - `magneticField`: µT, uncalibrated.
@frozen
public struct IMUSample: Sendable, BitwiseCopyable {
    /// Which sensors contributed to this sample.
    @frozen
    public struct Contents: OptionSet, Sendable, BitwiseCopyable, Hashable {
        public var rawValue: UInt32
        @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let accelerometer = Contents(rawValue: 1 << 0)
        public static let gyroscope = Contents(rawValue: 1 << 1)
        public static let magnetometer = Contents(rawValue: 1 << 2)
        public static let inertial: Contents = [.accelerometer, .gyroscope]
        public static let all: Contents = [.accelerometer, .gyroscope, .magnetometer]
    }

    /// Timing annotations set by the source.
    @frozen
    public struct Flags: OptionSet, Sendable, BitwiseCopyable, Hashable {
        public var rawValue: UInt32
        @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// The timestamp came from a hardware event (data-ready edge or IIO buffer), not a timer.
        public static let hardwareTimestamp = Flags(rawValue: 1 << 0)
        /// One or more samples before this one were lost (missed edge, FIFO overrun).
        public static let discontinuity = Flags(rawValue: 1 << 1)
        /// The chip's own motion-detection engine had flagged motion when this sample was read
        /// (MPU-6050 INT_STATUS bit 6 MOT_INT, LSM6DSOX WAKE_UP_SRC WU_IA, BMI160 INT_STATUS_0
        /// bit 2 anym, read on the interrupt edge that delivered it).
        public static let chipMotion = Flags(rawValue: 1 << 2)
        /// The chip's free-fall engine had flagged free fall (LSM6DSOX WAKE_UP_SRC bit 5 FF_IA,
        /// BMI160 INT_STATUS_1 bit 3 low_g).
        public static let chipFreeFall = Flags(rawValue: 1 << 3)
        /// The chip's tap engine had recognised a single tap (LSM6DSOX TAP_SRC bit 5 SINGLE_TAP,
        /// BMI160 INT_STATUS_0 bit 5 s_tap as it rises).
        public static let chipTap = Flags(rawValue: 1 << 4)
        /// The chip's tap engine had recognised a double tap (LSM6DSOX TAP_SRC bit 4 DOUBLE_TAP,
        /// BMI160 INT_STATUS_0 bit 4 d_tap as it rises).
        public static let chipDoubleTap = Flags(rawValue: 1 << 5)
        /// The chip's 6D engine saw a change of position (LSM6DSOX D6D_SRC bit 6 D6D_IA); the
        /// face it reports is in `chipFace` (bits 8…10).
        public static let chipOrientation = Flags(rawValue: 1 << 6)
        /// Every flag a chip's interrupt engines set.
        public static let chipEvents: Flags = [.chipMotion, .chipFreeFall, .chipTap, .chipDoubleTap, .chipOrientation]
        /// Bits 8…10: the `DeviceFace` raw value the chip's 6D engine reported with `.chipOrientation`
        /// (the chip's axes, before any mount), 0 (`.unknown`) otherwise.
        public static let chipFaceMask = Flags(rawValue: 0x7 << 8)

        /// `.chipOrientation` with `face` in the face field.
        @inlinable public static func chipOrientation(_ face: DeviceFace) -> Flags {
            Flags(rawValue: chipOrientation.rawValue | UInt32(face.rawValue) << 8)
        }

        /// The face of a `.chipOrientation` flag, `nil` without it.
        @inlinable public var chipFace: DeviceFace? {
            guard contains(.chipOrientation) else { return nil }
            return DeviceFace(rawValue: UInt8((rawValue >> 8) & 0x7)) ?? .unknown
        }
    }

    /// Sample time in nanoseconds of `CLOCK_MONOTONIC`.
    public var timestampNanos: UInt64
    /// Source sequence number, +1 per sample produced by the source (gaps mean loss).
    public var sequence: UInt64
    /// Specific force in m/s², sensor frame.
    public var specificForce: Vector3
    /// Rotation rate in rad/s, sensor frame, raw (not bias-corrected).
    public var rotationRate: Vector3
    /// Magnetic field in µT, sensor frame, uncalibrated.
    public var magneticField: Vector3
    public var contents: Contents
    public var flags: Flags

    @inlinable
    public init(
        timestampNanos: UInt64, sequence: UInt64,
        specificForce: Vector3 = .zero, rotationRate: Vector3 = .zero, magneticField: Vector3 = .zero,
        contents: Contents, flags: Flags = []
    ) {
        self.timestampNanos = timestampNanos
        self.sequence = sequence
        self.specificForce = specificForce
        self.rotationRate = rotationRate
        self.magneticField = magneticField
        self.contents = contents
        self.flags = flags
    }

    /// Sample time in seconds of `CLOCK_MONOTONIC` (Core Motion's `CMLogItem.timestamp`).
    @inlinable public var timestamp: Double { Double(timestampNanos) * 1e-9 }
}

/// Standard gravity in m/s², used to convert specific force to Core Motion's g.
public let standardGravity = 9.80665
