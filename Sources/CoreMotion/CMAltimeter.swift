import Foundation
internal import EdgeMotion

public typealias CMAltitudeHandler = (CMAltitudeData?, (any Error)?) -> Void
public typealias CMAbsoluteAltitudeHandler = (CMAbsoluteAltitudeData?, (any Error)?) -> Void

/// Relative altitude from a barometer. Immutable.
open class CMAltitudeData: CMLogItem, @unchecked Sendable {
    /// Metres since the updates started.
    open var relativeAltitude: NSNumber { NSNumber(value: 0) }
    /// kPa.
    open var pressure: NSNumber { NSNumber(value: 0) }
}

/// Absolute altitude. Immutable.
open class CMAbsoluteAltitudeData: CMLogItem, @unchecked Sendable {
    open var altitude: Double { 0 }
    open var accuracy: Double { -1 }
    open var precision: Double { -1 }
}

/// Core Motion's `CMAltimeter`, so code that checks for a barometer compiles: no EdgeMotion
/// source has one yet, so both availabilities are false and a start tells the handler
/// `CMErrorNotAvailable` once (on `queue`).
open class CMAltimeter: NSObject, @unchecked Sendable {   // no state
    public override init() { super.init() }

    open class func isRelativeAltitudeAvailable() -> Bool { false }
    open class func isAbsoluteAltitudeAvailable() -> Bool { false }
    open class func authorizationStatus() -> CMAuthorizationStatus { .authorized }

    private func unavailable<Object>(_ queue: OperationQueue, _ handler: @escaping (Object?, (any Error)?) -> Void) {
        let box = HandlerBox(value: handler)
        let error = HandlerBox(value: MotionError(.notAvailable, detail: "no barometer on this board").nsError)
        queue.addOperation { box.value(nil, error.value) }
    }

    open func startRelativeAltitudeUpdates(to queue: OperationQueue, withHandler handler: @escaping CMAltitudeHandler) {
        unavailable(queue, handler)
    }
    open func stopRelativeAltitudeUpdates() {}
    open func startAbsoluteAltitudeUpdates(to queue: OperationQueue, withHandler handler: @escaping CMAbsoluteAltitudeHandler) {
        unavailable(queue, handler)
    }
    open func stopAbsoluteAltitudeUpdates() {}
}
