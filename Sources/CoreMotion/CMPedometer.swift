import Foundation
internal import EdgeMotion
internal import MotionCore
internal import Sensors

public typealias CMPedometerHandler = (CMPedometerData?, (any Error)?) -> Void
public typealias CMPedometerEventHandler = (CMPedometerEvent?, (any Error)?) -> Void

public enum CMPedometerEventType: Int, Sendable {
    case pause = 0
    case resume = 1
}

/// Steps and distance over an interval (Core Motion's `NSNumber` fields). Immutable.
open class CMPedometerData: NSObject, @unchecked Sendable {
    private let value: PedometerData

    init(_ d: PedometerData) { value = d; super.init() }

    open var startDate: Date { Date(timeIntervalSince1970: value.startDate) }
    open var endDate: Date { Date(timeIntervalSince1970: value.endDate) }
    open var numberOfSteps: NSNumber { NSNumber(value: value.numberOfSteps) }
    /// Metres: the sum of the counted steps' lengths (`PedometerConfiguration.stepLength(cadence:)`).
    open var distance: NSNumber? { NSNumber(value: value.distance) }
    /// `nil`: no barometer.
    open var floorsAscended: NSNumber? { value.floorsAscended.map { NSNumber(value: $0) } }
    open var floorsDescended: NSNumber? { value.floorsDescended.map { NSNumber(value: $0) } }
    /// Seconds per metre; `nil` when unknown (history queries).
    open var currentPace: NSNumber? { value.currentPace > 0 ? NSNumber(value: value.currentPace) : nil }
    /// Steps per second; `nil` when unknown.
    open var currentCadence: NSNumber? { value.currentCadence > 0 ? NSNumber(value: value.currentCadence) : nil }
    open var averageActivePace: NSNumber? { value.averageActivePace > 0 ? NSNumber(value: value.averageActivePace) : nil }

    open override var description: String {
        "CMPedometerData \(value.numberOfSteps) steps, \(value.distance) m, \(startDate)–\(endDate)"
    }
}

/// Walking paused or resumed. Immutable.
open class CMPedometerEvent: NSObject, @unchecked Sendable {
    private let value: PedometerEvent
    init(_ e: PedometerEvent) { value = e; super.init() }
    open var date: Date { Date(timeIntervalSince1970: value.date) }
    open var type: CMPedometerEventType { value.kind == .pause ? .pause : .resume }
}

/// Core Motion's `CMPedometer`: live step counts, history queries and pause/resume events.
/// Handlers run on a private serial queue, as on iOS.
open class CMPedometer: NSObject, @unchecked Sendable {   // EdgeMotion's manager locks its state
    let inner: PedometerManager?
    private let delivery = DispatchQueue(label: "coremotion.pedometer")

    public override init() {
        inner = SystemMotion.service.map { PedometerManager(service: $0) }
        super.init()
    }

    private static var hasAccelerometer: Bool { SystemMotion.service?.capabilities.sensors.contains(.accelerometer) ?? false }
    open class func isStepCountingAvailable() -> Bool { hasAccelerometer }
    open class func isDistanceAvailable() -> Bool { hasAccelerometer }
    /// No barometer: false.
    open class func isFloorCountingAvailable() -> Bool { false }
    open class func isPaceAvailable() -> Bool { hasAccelerometer }
    open class func isCadenceAvailable() -> Bool { hasAccelerometer }
    open class func isPedometerEventTrackingAvailable() -> Bool { hasAccelerometer }
    open class func authorizationStatus() -> CMAuthorizationStatus { .authorized }

    private func forward<Value, Object>(_ handler: @escaping (Object?, (any Error)?) -> Void,
                                        _ convert: @escaping @Sendable (Value) -> Object) -> @Sendable (Value?, MotionError?) -> Void {
        let box = HandlerBox(value: handler)
        return { value, error in box.value(value.map(convert), error?.nsError) }
    }

    private func unavailable<Object>(_ handler: @escaping (Object?, (any Error)?) -> Void) {
        let box = HandlerBox(value: handler)
        delivery.async { box.value(nil, MotionError(.notAvailable, detail: SystemMotion.shared.summary).nsError) }
    }

    /// Totals since `start` whenever the count changes.
    open func startUpdates(from start: Date, withHandler handler: @escaping CMPedometerHandler) {
        guard let inner else { return unavailable(handler) }
        inner.startUpdates(from: UTCInstant(start), to: delivery, withHandler: forward(handler) { CMPedometerData($0) })
    }
    open func stopUpdates() { inner?.stopUpdates() }

    open func startEventUpdates(handler: @escaping CMPedometerEventHandler) {
        guard let inner else { return unavailable(handler) }
        inner.startEventUpdates(to: delivery, handler: forward(handler) { CMPedometerEvent($0) })
    }
    open func stopEventUpdates() { inner?.stopEventUpdates() }

    /// Steps and distance in `[start, end)` from the stored history.
    open func queryPedometerData(from start: Date, to end: Date, withHandler handler: @escaping CMPedometerHandler) {
        guard let inner else { return unavailable(handler) }
        inner.queryPedometerData(from: UTCInstant(start), to: UTCInstant(end), to: delivery,
                                 withHandler: forward(handler) { CMPedometerData($0) })
    }
}
