import Foundation
internal import EdgeMotion
internal import MotionCore
internal import Sensors

public typealias CMAltitudeHandler = (CMAltitudeData?, (any Error)?) -> Void
public typealias CMAbsoluteAltitudeHandler = (CMAbsoluteAltitudeData?, (any Error)?) -> Void

/// Relative altitude from a barometer. Immutable.
open class CMAltitudeData: CMLogItem, @unchecked Sendable {
    private let _relativeAltitude: Double
    private let _pressure: Double
    /// Metres climbed since the updates started (positive up).
    open var relativeAltitude: NSNumber { NSNumber(value: _relativeAltitude) }
    /// Barometric pressure, kPa.
    open var pressure: NSNumber { NSNumber(value: _pressure) }

    public override init() { _relativeAltitude = 0; _pressure = 0; super.init() }
    init(_ d: AltitudeData) {
        _relativeAltitude = d.relativeAltitude
        _pressure = d.pressure
        super.init(timestamp: Double(d.timestampNanos) * 1e-9)
    }

    open override var description: String {
        "CMAltitudeData relativeAltitude \(_relativeAltitude) m pressure \(_pressure) kPa @ \(timestamp)"
    }
}

/// Absolute altitude. Immutable.
open class CMAbsoluteAltitudeData: CMLogItem, @unchecked Sendable {
    open var altitude: Double { 0 }
    open var accuracy: Double { -1 }
    open var precision: Double { -1 }
}

/// Core Motion's `CMAltimeter` over the library's `Altimeter`: the board's barometer is
/// `EDGEMOTION_BAROMETER` (an IIO device name, label or id), else the first `auxiliary.devices`
/// entry with a pressure channel in the agent's configuration (`EDGEMOTION_CONFIG` or
/// /etc/edgemotion/edgemotion.yaml), else the first IIO device on the board with one (as
/// `edgemotion probe` lists them). Without one, availability is false and a start tells the
/// handler `CMErrorNotAvailable` once (on `queue`). Absolute altitude needs GNSS: never available.
open class CMAltimeter: NSObject, @unchecked Sendable {
    // @unchecked Sendable: `altimeter` is set once in init; `Altimeter` is Sendable.
    private let altimeter: Altimeter?

    public override init() {
        altimeter = SystemBarometer.shared.map { Altimeter(uri: $0.uri, device: $0.device) }
        super.init()
    }

    open class func isRelativeAltitudeAvailable() -> Bool { SystemBarometer.shared != nil }
    open class func isAbsoluteAltitudeAvailable() -> Bool { false }
    open class func authorizationStatus() -> CMAuthorizationStatus { .authorized }

    private func unavailable<Object>(_ queue: OperationQueue, _ detail: String, _ handler: @escaping (Object?, (any Error)?) -> Void) {
        let box = HandlerBox(value: handler)
        let error = HandlerBox(value: MotionError(.notAvailable, detail: detail).nsError)
        queue.addOperation { box.value(nil, error.value) }
    }

    /// Updates about once a second (the barometer's read interval); the first is 0 m.
    open func startRelativeAltitudeUpdates(to queue: OperationQueue, withHandler handler: @escaping CMAltitudeHandler) {
        guard let altimeter else { return unavailable(queue, "no barometer on this board", handler) }
        let box = HandlerBox(value: handler)
        let queueBox = HandlerBox(value: queue)
        altimeter.startRelativeAltitudeUpdates(to: DispatchQueue(label: "edgemotion.cmaltimeter")) { data, error in
            let item = data.map { HandlerBox(value: CMAltitudeData($0)) }
            let nsError = error.map { HandlerBox(value: $0.nsError) }
            queueBox.value.addOperation { box.value(item?.value, nsError?.value) }
        }
    }
    open func stopRelativeAltitudeUpdates() { altimeter?.stopRelativeAltitudeUpdates() }
    open func startAbsoluteAltitudeUpdates(to queue: OperationQueue, withHandler handler: @escaping CMAbsoluteAltitudeHandler) {
        unavailable(queue, "absolute altitude needs a GNSS receiver; EdgeMotion has none", handler)
    }
    open func stopAbsoluteAltitudeUpdates() {}
}
