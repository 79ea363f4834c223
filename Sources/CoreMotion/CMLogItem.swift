import Foundation
internal import EdgeMotion
internal import MotionCore
internal import Sensors

// Data objects are immutable after init (every stored property is a `let`), so sharing them
// across threads is safe: that is why they are `@unchecked Sendable` (NSObject subclasses cannot
// be checked by the compiler). Subclasses that add mutable state must keep that promise.

/// The base of every timestamped Core Motion sample.
open class CMLogItem: NSObject, NSCopying, @unchecked Sendable {
    private let _timestamp: TimeInterval
    /// When the sample was taken: seconds since the board booted (`CLOCK_MONOTONIC`), as on iOS
    /// (not a `Date`; see `CMSensorRecorder` and `CMMotionActivity.startDate` for UTC).
    open var timestamp: TimeInterval { _timestamp }

    public override init() { _timestamp = 0; super.init() }
    init(timestamp: TimeInterval) { _timestamp = timestamp; super.init() }

    /// Immutable: a copy is the object itself.
    open func copy(with zone: NSZone? = nil) -> Any { self }
}

/// One accelerometer reading.
open class CMAccelerometerData: CMLogItem, @unchecked Sendable {
    private let _acceleration: CMAcceleration
    /// g, device frame; −1 g on the axis pointing up at rest.
    open var acceleration: CMAcceleration { _acceleration }

    public override init() { _acceleration = CMAcceleration(); super.init() }
    init(timestamp: TimeInterval, acceleration: CMAcceleration) {
        _acceleration = acceleration
        super.init(timestamp: timestamp)
    }
    convenience init(_ d: AccelerometerData) { self.init(timestamp: d.timestamp, acceleration: CMAcceleration(d.acceleration)) }

    open override var description: String {
        "CMAccelerometerData x \(acceleration.x) y \(acceleration.y) z \(acceleration.z) @ \(timestamp)"
    }
}

/// One raw gyroscope reading (bias not removed; `CMDeviceMotion.rotationRate` is corrected).
open class CMGyroData: CMLogItem, @unchecked Sendable {
    private let _rotationRate: CMRotationRate
    /// rad/s about the device axes.
    open var rotationRate: CMRotationRate { _rotationRate }

    public override init() { _rotationRate = CMRotationRate(); super.init() }
    init(_ d: GyroData) {
        _rotationRate = CMRotationRate(d.rotationRate)
        super.init(timestamp: d.timestamp)
    }

    open override var description: String {
        "CMGyroData x \(rotationRate.x) y \(rotationRate.y) z \(rotationRate.z) @ \(timestamp)"
    }
}

/// One raw magnetometer reading (device bias included; `CMDeviceMotion.magneticField` is
/// calibrated).
open class CMMagnetometerData: CMLogItem, @unchecked Sendable {
    private let _magneticField: CMMagneticField
    /// µT, device frame.
    open var magneticField: CMMagneticField { _magneticField }

    public override init() { _magneticField = CMMagneticField(); super.init() }
    init(_ d: MagnetometerData) {
        _magneticField = CMMagneticField(d.magneticField)
        super.init(timestamp: d.timestamp)
    }

    open override var description: String {
        "CMMagnetometerData x \(magneticField.x) y \(magneticField.y) z \(magneticField.z) @ \(timestamp)"
    }
}

/// One accelerometer reading kept by `CMSensorRecorder`.
open class CMRecordedAccelerometerData: CMAccelerometerData, @unchecked Sendable {
    private let _identifier: UInt64
    private let _startDate: Date
    /// Unique, increasing within a recording session.
    open var identifier: UInt64 { _identifier }
    /// When the sample was taken, UTC.
    open var startDate: Date { _startDate }

    public override init() { _identifier = 0; _startDate = Date(timeIntervalSince1970: 0); super.init() }
    init(_ r: RecordedAccelerometerData) {
        _identifier = r.identifier
        _startDate = Date(timeIntervalSince1970: r.startDate)
        super.init(timestamp: r.timestamp, acceleration: CMAcceleration(r.acceleration))
    }
}
