import Foundation
internal import EdgeMotion
internal import MotionCore
internal import Sensors

/// Fused device motion: attitude, bias-corrected rotation rate, gravity and user acceleration.
open class CMDeviceMotion: CMLogItem, @unchecked Sendable {
    /// Where the measuring sensor sits (only `default` on a board).
    public enum SensorLocation: Int, Sendable {
        case `default` = 0
        case headphoneLeft = 1
        case headphoneRight = 2
    }

    private let value: DeviceMotion
    private let _attitude: CMAttitude

    init(_ m: DeviceMotion) {
        value = m
        _attitude = CMAttitude(m.attitude)
        super.init(timestamp: m.timestamp)
    }

    /// Relative to the reference frame of the updates (`CMMotionManager.attitudeReferenceFrame`).
    open var attitude: CMAttitude { _attitude }
    /// rad/s, device frame, gyroscope bias removed.
    open var rotationRate: CMRotationRate { CMRotationRate(value.rotationRate) }
    /// g, device frame: −1 g along the axis pointing up at rest (z lying flat, screen up).
    open var gravity: CMAcceleration { CMAcceleration(value.gravity) }
    /// g, device frame, gravity removed.
    open var userAcceleration: CMAcceleration { CMAcceleration(value.userAcceleration) }
    /// µT, device frame, calibrated; accuracy `uncalibrated` without a magnetometer.
    open var magneticField: CMCalibratedMagneticField {
        CMCalibratedMagneticField(field: CMMagneticField(value.magneticField.field),
                                  accuracy: CMMagneticFieldCalibrationAccuracy(value.magneticField.accuracy))
    }
    /// Degrees 0–360 clockwise from north of the device's top (its y axis) in the north frames;
    /// negative (invalid) in the arbitrary frames.
    open var heading: Double { value.heading }
    open var sensorLocation: SensorLocation { .default }

    /// The frame the attitude is actually relative to (EdgeMotion addition: differs from the
    /// requested one when true north fell back to magnetic north).
    var referenceFrame: CMAttitudeReferenceFrame { CMAttitudeReferenceFrame(value.referenceFrame) }

    open override var description: String {
        "CMDeviceMotion roll \(attitude.roll) pitch \(attitude.pitch) yaw \(attitude.yaw) gravity (\(gravity.x), \(gravity.y), \(gravity.z)) heading \(heading) @ \(timestamp)"
    }
}
