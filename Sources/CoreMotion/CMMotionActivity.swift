import Foundation
internal import EdgeMotion
internal import MotionCore
internal import Sensors

public enum CMMotionActivityConfidence: Int, Sendable {
    case low = 0
    case medium = 1
    case high = 2
}

public typealias CMMotionActivityHandler = (CMMotionActivity?) -> Void
public typealias CMMotionActivityQueryHandler = ([CMMotionActivity]?, (any Error)?) -> Void

/// One activity change: the flags, the confidence and when it started (UTC `Date`). Immutable
/// (`@unchecked Sendable` as `CMLogItem`).
open class CMMotionActivity: CMLogItem, @unchecked Sendable {
    private let value: MotionActivity
    private let _startDate: Date

    /// `activity.startDate` is UTC seconds (the manager's updates and the history both are).
    init(_ activity: MotionActivity, mapping: WallClockMapping = .current()) {
        value = activity
        _startDate = Date(timeIntervalSince1970: activity.startDate)
        super.init(timestamp: UTCInstant(secondsSince1970: activity.startDate).monotonic(mapping).secondsSinceBoot)
    }

    open var startDate: Date { _startDate }
    open var confidence: CMMotionActivityConfidence { CMMotionActivityConfidence(rawValue: value.confidence.rawValue) ?? .low }
    open var unknown: Bool { value.unknown }
    open var stationary: Bool { value.stationary }
    open var walking: Bool { value.walking }
    open var running: Bool { value.running }
    open var automotive: Bool { value.automotive }
    open var cycling: Bool { value.cycling }

    open override var description: String {
        "CMMotionActivity \(value.flagNames) confidence \(confidence) @ \(startDate)"
    }
}

/// Core Motion's `CMMotionActivityManager`: live activity changes and the stored history (kept
/// by the shared activity engine of the system source).
open class CMMotionActivityManager: NSObject, @unchecked Sendable {   // EdgeMotion's manager locks its state
    let inner: MotionActivityManager?
    private let delivery = DispatchQueue(label: "coremotion.activity")

    public override init() {
        inner = SystemMotion.service.map { MotionActivityManager(service: $0) }
        super.init()
    }

    /// Whether the system source has an accelerometer (activity detection needs one).
    open class func isActivityAvailable() -> Bool {
        SystemMotion.service?.capabilities.sensors.contains(.accelerometer) ?? false
    }

    /// Always `authorized`: Linux has no per-app motion permission.
    open class func authorizationStatus() -> CMAuthorizationStatus { .authorized }

    /// Calls `handler` on `queue` with every activity change (the current one first).
    open func startActivityUpdates(to queue: OperationQueue, withHandler handler: @escaping CMMotionActivityHandler) {
        guard let inner else { return }
        let box = HandlerBox(value: handler), target = HandlerBox(value: queue)
        inner.startActivityUpdates(to: delivery) { activity in
            let item = HandlerBox(value: activity.map { CMMotionActivity($0) })
            target.value.addOperation { box.value(item.value) }
        }
    }

    open func stopActivityUpdates() { inner?.stopActivityUpdates() }

    /// The activity changes that started in `[start, end)`, oldest first, on `queue`.
    open func queryActivityStarting(from start: Date, to end: Date, to queue: OperationQueue,
                                    withHandler handler: @escaping CMMotionActivityQueryHandler) {
        let box = HandlerBox(value: handler), target = HandlerBox(value: queue)
        guard let inner else {
            let error = HandlerBox(value: MotionError(.motionActivityNotAvailable, detail: SystemMotion.shared.summary).nsError)
            return queue.addOperation { box.value(nil, error.value) }
        }
        inner.queryActivityStarting(from: UTCInstant(start), to: UTCInstant(end), to: delivery) { items, error in
            let mapping = WallClockMapping.current()
            let result = HandlerBox(value: items.map { $0.map { CMMotionActivity($0, mapping: mapping) } })
            let ns = error.map { HandlerBox(value: $0.nsError) }
            target.value.addOperation { box.value(result.value, ns?.value) }
        }
    }
}

extension UTCInstant {
    init(_ date: Date) { self.init(secondsSince1970: date.timeIntervalSince1970) }
}
