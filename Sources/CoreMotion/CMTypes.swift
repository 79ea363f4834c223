import Foundation
internal import EdgeMotion
internal import MotionCore
internal import Sensors

/// Acceleration in g (9.81 m/s²), device frame; at rest the accelerometer reads −1 g along the
/// axis pointing up (Core Motion's sign).
public struct CMAcceleration: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var z: Double
    public init() { x = 0; y = 0; z = 0 }
    public init(x: Double, y: Double, z: Double) { self.x = x; self.y = y; self.z = z }
    init(_ a: Acceleration) { self.init(x: a.x, y: a.y, z: a.z) }
}

/// Rotation rate in rad/s about the device axes, right-handed.
public struct CMRotationRate: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var z: Double
    public init() { x = 0; y = 0; z = 0 }
    public init(x: Double, y: Double, z: Double) { self.x = x; self.y = y; self.z = z }
    init(_ r: RotationRate) { self.init(x: r.x, y: r.y, z: r.z) }
}

/// Magnetic field in µT, device frame.
public struct CMMagneticField: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var z: Double
    public init() { x = 0; y = 0; z = 0 }
    public init(x: Double, y: Double, z: Double) { self.x = x; self.y = y; self.z = z }
    init(_ m: MagneticField) { self.init(x: m.x, y: m.y, z: m.z) }
}

/// How well the magnetometer is calibrated (Core Motion's raw values).
public enum CMMagneticFieldCalibrationAccuracy: Int32, Sendable {
    case uncalibrated = -1
    case low = 0
    case medium = 1
    case high = 2
    init(_ a: MagneticFieldCalibrationAccuracy) {
        switch a {
        case .uncalibrated: self = .uncalibrated
        case .low: self = .low
        case .medium: self = .medium
        case .high: self = .high
        }
    }
}

/// A calibrated magnetic field (µT, device frame, device bias removed) and its accuracy.
public struct CMCalibratedMagneticField: Sendable {
    public var field: CMMagneticField
    public var accuracy: CMMagneticFieldCalibrationAccuracy
    public init() { field = CMMagneticField(); accuracy = .uncalibrated }
    public init(field: CMMagneticField, accuracy: CMMagneticFieldCalibrationAccuracy) {
        self.field = field
        self.accuracy = accuracy
    }
}

/// A unit quaternion (x, y, z, w), device → reference frame.
public struct CMQuaternion: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var z: Double
    public var w: Double
    public init() { x = 0; y = 0; z = 0; w = 1 }
    public init(x: Double, y: Double, z: Double, w: Double) { self.x = x; self.y = y; self.z = z; self.w = w }
}

/// A 3×3 rotation matrix, the same rotation as `CMAttitude.quaternion`.
public struct CMRotationMatrix: Sendable, Equatable {
    public var m11: Double, m12: Double, m13: Double
    public var m21: Double, m22: Double, m23: Double
    public var m31: Double, m32: Double, m33: Double
    public init() {
        m11 = 1; m12 = 0; m13 = 0
        m21 = 0; m22 = 1; m23 = 0
        m31 = 0; m32 = 0; m33 = 1
    }
    public init(m11: Double, m12: Double, m13: Double, m21: Double, m22: Double, m23: Double,
                m31: Double, m32: Double, m33: Double) {
        self.m11 = m11; self.m12 = m12; self.m13 = m13
        self.m21 = m21; self.m22 = m22; self.m23 = m23
        self.m31 = m31; self.m32 = m32; self.m33 = m33
    }
    init(_ r: RotationMatrix) {
        self.init(m11: r.m11, m12: r.m12, m13: r.m13, m21: r.m21, m22: r.m22, m23: r.m23, m31: r.m31, m32: r.m32, m33: r.m33)
    }
}

/// Which earth-fixed frame attitudes are relative to (Core Motion's raw values). Every frame
/// has z vertical, up.
public struct CMAttitudeReferenceFrame: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// x arbitrary in the horizontal plane, fixed at start; no magnetometer.
    public static let xArbitraryZVertical = CMAttitudeReferenceFrame(rawValue: 1 << 0)
    /// As `xArbitraryZVertical`, the magnetometer used to stop yaw drift.
    public static let xArbitraryCorrectedZVertical = CMAttitudeReferenceFrame(rawValue: 1 << 1)
    /// x to magnetic north, y west, z up.
    public static let xMagneticNorthZVertical = CMAttitudeReferenceFrame(rawValue: 1 << 2)
    /// x to true north, y west, z up; needs the location's magnetic declination.
    public static let xTrueNorthZVertical = CMAttitudeReferenceFrame(rawValue: 1 << 3)

    init(_ f: AttitudeReferenceFrame) {
        switch f {
        case .xArbitraryZVertical: self = .xArbitraryZVertical
        case .xArbitraryCorrectedZVertical: self = .xArbitraryCorrectedZVertical
        case .xMagneticNorthZVertical: self = .xMagneticNorthZVertical
        case .xTrueNorthZVertical: self = .xTrueNorthZVertical
        }
    }

    /// The single EdgeMotion frame of a one-frame value (the strongest one of a set).
    var edgeMotionFrame: AttitudeReferenceFrame {
        if contains(.xTrueNorthZVertical) { return .xTrueNorthZVertical }
        if contains(.xMagneticNorthZVertical) { return .xMagneticNorthZVertical }
        if contains(.xArbitraryCorrectedZVertical) { return .xArbitraryCorrectedZVertical }
        return .xArbitraryZVertical
    }
}

/// Whether the app may use motion data. Linux has no per-app motion permission: always
/// `authorized`.
public enum CMAuthorizationStatus: Int, Sendable {
    case notDetermined = 0
    case restricted = 1
    case denied = 2
    case authorized = 3
}
