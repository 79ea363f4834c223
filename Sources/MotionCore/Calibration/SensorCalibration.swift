/// Per-device sensor calibration, applied to raw readings before fusion.
///
/// Frame: the calibration file and the calibrators work in **chip axes** (the sensor's own, before
/// `IMUMount`), so a mount learned or changed later leaves it valid; the pipeline applies
/// `inBoardAxes(_:)` of it to mounted samples (SensorCalibration+Mount.swift).
///
/// - Gyroscope: `rate − gyroBias` (rad/s).
/// - Accelerometer: `(f − accelerometerOffset) ⊘ accelerometerScale` per axis (m/s², unitless scale),
///   or `accelerometerMatrix · (f − accelerometerOffset)` when the matrix is set (the board-axes
///   form of a per-axis scale under a rotation that is not an axis remap; never in a file).
/// - Magnetometer: `magnetometerSoftIron · (m − magnetometerOffset)` (µT): the hard-iron offset
///   and the soft-iron matrix that maps the measured ellipsoid onto a sphere.
///
/// Each part is optional; a missing part leaves that sensor as it is.
public struct SensorCalibration: Sendable, Hashable {
    public var gyroBias: Vector3?
    public var accelerometerOffset: Vector3?
    public var accelerometerScale: Vector3?
    /// Replaces `accelerometerScale` when set: the inverse-scale matrix in another frame
    /// (`inBoardAxes`). `nil` in every calibration read from a file.
    public var accelerometerMatrix: Matrix3?
    public var magnetometerOffset: Vector3?
    public var magnetometerSoftIron: Matrix3?
    /// Radius of the fitted field sphere, µT (the local field strength seen by the sensor).
    public var magnetometerFieldStrength: Double?

    public init(gyroBias: Vector3? = nil, accelerometerOffset: Vector3? = nil, accelerometerScale: Vector3? = nil,
                magnetometerOffset: Vector3? = nil, magnetometerSoftIron: Matrix3? = nil,
                magnetometerFieldStrength: Double? = nil) {
        self.gyroBias = gyroBias
        self.accelerometerOffset = accelerometerOffset
        self.accelerometerScale = accelerometerScale
        self.magnetometerOffset = magnetometerOffset
        self.magnetometerSoftIron = magnetometerSoftIron
        self.magnetometerFieldStrength = magnetometerFieldStrength
    }

    public static let none = SensorCalibration()

    /// Whether a magnetometer calibration is present.
    public var hasMagnetometer: Bool { magnetometerOffset != nil }

    /// Rotation rate with the calibrated bias removed, rad/s.
    @inlinable
    public func gyroscope(_ raw: Vector3) -> Vector3 {
        guard let b = gyroBias else { return raw }
        return raw - b
    }

    /// Calibrated specific force, m/s².
    @inlinable
    public func accelerometer(_ raw: Vector3) -> Vector3 {
        var v = raw
        if let o = accelerometerOffset { v -= o }
        if let m = accelerometerMatrix {
            v = m * v
        } else if let s = accelerometerScale {
            v = Vector3(v.x / s.x, v.y / s.y, v.z / s.z)
        }
        return v
    }

    /// Calibrated magnetic field, µT.
    @inlinable
    public func magnetometer(_ raw: Vector3) -> Vector3 {
        var v = raw
        if let o = magnetometerOffset { v -= o }
        if let w = magnetometerSoftIron { v = w * v }
        return v
    }
}
