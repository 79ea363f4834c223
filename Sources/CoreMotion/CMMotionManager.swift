import Foundation
internal import EdgeMotion
internal import MotionCore
internal import Sensors

public typealias CMAccelerometerHandler = (CMAccelerometerData?, (any Error)?) -> Void
public typealias CMGyroHandler = (CMGyroData?, (any Error)?) -> Void
public typealias CMMagnetometerHandler = (CMMagnetometerData?, (any Error)?) -> Void
public typealias CMDeviceMotionHandler = (CMDeviceMotion?, (any Error)?) -> Void

/// Carries a value that is not `Sendable` to the one queue that uses it. Safe because the box is
/// only unwrapped inside operations on the caller's `OperationQueue`, which is where Core Motion
/// itself calls the handler; the handler is never called concurrently with itself by this module
/// unless the caller's queue is concurrent (as on iOS).
struct HandlerBox<T>: @unchecked Sendable {
    let value: T
}

/// Core Motion's `CMMotionManager` on a Linux board: accelerometer, gyroscope, magnetometer and
/// fused device motion, pushed to handlers on an `OperationQueue` or pulled from the `…Data`
/// properties. The IMU is the process's system source (`EDGEMOTION_SOURCE`, the agent's
/// configuration, or a probed IIO device; see docs/porting-from-ios.md); every manager shares
/// its one pipeline.
///
/// Update intervals read back as delivered, not as set: the pipeline keeps one source sample in
/// n, n = source rate × interval rounded to the nearest whole number (at least 1), so the
/// delivered interval is n / source rate (1/60 s asked on a 200 Hz source: n = 3, 0.015 s is
/// delivered and read back; 0.001 s asked: n = 1, 0.005 s). Errors reach the
/// handler as `NSError`s in `CMErrorDomain` with `CMError` codes, once per condition.
///
/// Thread-safe (EdgeMotion's manager locks its own state), hence `@unchecked Sendable`.
open class CMMotionManager: NSObject, @unchecked Sendable {
    let inner: MotionManager?
    private let delivery = DispatchQueue(label: "coremotion.manager")
    private let lock = NSLock()
    private var intervals = (accelerometer: 0.01, gyro: 0.01, magnetometer: 0.01, deviceMotion: 0.01)
    private var _showsDeviceMovementDisplay = false

    public override init() {
        inner = SystemMotion.service.map { MotionManager(service: $0) }
        super.init()
    }

    // MARK: Intervals (seconds)

    /// Seconds between accelerometer updates, as delivered (see the type's note on rounding).
    open var accelerometerUpdateInterval: TimeInterval {
        get { inner?.accelerometerUpdateInterval ?? lock.withLock { intervals.accelerometer } }
        set { inner?.accelerometerUpdateInterval = newValue; lock.withLock { intervals.accelerometer = newValue } }
    }
    open var gyroUpdateInterval: TimeInterval {
        get { inner?.gyroUpdateInterval ?? lock.withLock { intervals.gyro } }
        set { inner?.gyroUpdateInterval = newValue; lock.withLock { intervals.gyro = newValue } }
    }
    open var magnetometerUpdateInterval: TimeInterval {
        get { inner?.magnetometerUpdateInterval ?? lock.withLock { intervals.magnetometer } }
        set { inner?.magnetometerUpdateInterval = newValue; lock.withLock { intervals.magnetometer = newValue } }
    }
    open var deviceMotionUpdateInterval: TimeInterval {
        get { inner?.deviceMotionUpdateInterval ?? lock.withLock { intervals.deviceMotion } }
        set { inner?.deviceMotionUpdateInterval = newValue; lock.withLock { intervals.deviceMotion = newValue } }
    }

    // MARK: Availability and activity

    open var isAccelerometerAvailable: Bool { inner?.isAccelerometerAvailable ?? false }
    open var isGyroAvailable: Bool { inner?.isGyroAvailable ?? false }
    open var isMagnetometerAvailable: Bool { inner?.isMagnetometerAvailable ?? false }
    open var isDeviceMotionAvailable: Bool { inner?.isDeviceMotionAvailable ?? false }
    open var isAccelerometerActive: Bool { inner?.isAccelerometerActive ?? false }
    open var isGyroActive: Bool { inner?.isGyroActive ?? false }
    open var isMagnetometerActive: Bool { inner?.isMagnetometerActive ?? false }
    open var isDeviceMotionActive: Bool { inner?.isDeviceMotionActive ?? false }

    // MARK: Pull

    open var accelerometerData: CMAccelerometerData? { inner?.accelerometerData.map(CMAccelerometerData.init) }
    open var gyroData: CMGyroData? { inner?.gyroData.map(CMGyroData.init) }
    open var magnetometerData: CMMagnetometerData? { inner?.magnetometerData.map(CMMagnetometerData.init) }
    open var deviceMotion: CMDeviceMotion? { inner?.deviceMotion.map(CMDeviceMotion.init) }

    // MARK: Push plumbing

    /// Calls `handler` on `queue` with each value converted, or with the error as an `NSError`.
    private func forward<Value, Object>(_ queue: OperationQueue, _ handler: @escaping (Object?, (any Error)?) -> Void,
                                        _ convert: @escaping @Sendable (Value) -> Object) -> @Sendable (Value?, MotionError?) -> Void {
        let box = HandlerBox(value: handler)
        let target = HandlerBox(value: queue)
        return { value, error in
            let item = HandlerBox(value: value.map(convert))
            let ns = error.map { HandlerBox(value: $0.nsError) }
            target.value.addOperation { box.value(item.value, ns?.value) }
        }
    }

    /// Without a system source: the handler learns once that nothing is available.
    private func unavailable<Object>(_ queue: OperationQueue, _ handler: @escaping (Object?, (any Error)?) -> Void, _ what: String) {
        let box = HandlerBox(value: handler)
        let error = HandlerBox(value: MotionError(.notAvailable, detail: "no \(what): \(SystemMotion.shared.summary)").nsError)
        queue.addOperation { box.value(nil, error.value) }
    }

    // MARK: Accelerometer

    open func startAccelerometerUpdates() { inner?.startAccelerometerUpdates() }
    open func startAccelerometerUpdates(to queue: OperationQueue, withHandler handler: @escaping CMAccelerometerHandler) {
        guard let inner else { return unavailable(queue, handler, "accelerometer") }
        inner.startAccelerometerUpdates(to: delivery, withHandler: forward(queue, handler) { CMAccelerometerData($0) })
    }
    open func stopAccelerometerUpdates() { inner?.stopAccelerometerUpdates() }

    // MARK: Gyroscope

    open func startGyroUpdates() { inner?.startGyroUpdates() }
    open func startGyroUpdates(to queue: OperationQueue, withHandler handler: @escaping CMGyroHandler) {
        guard let inner else { return unavailable(queue, handler, "gyroscope") }
        inner.startGyroUpdates(to: delivery, withHandler: forward(queue, handler) { CMGyroData($0) })
    }
    open func stopGyroUpdates() { inner?.stopGyroUpdates() }

    // MARK: Magnetometer

    open func startMagnetometerUpdates() { inner?.startMagnetometerUpdates() }
    open func startMagnetometerUpdates(to queue: OperationQueue, withHandler handler: @escaping CMMagnetometerHandler) {
        guard let inner else { return unavailable(queue, handler, "magnetometer") }
        inner.startMagnetometerUpdates(to: delivery, withHandler: forward(queue, handler) { CMMagnetometerData($0) })
    }
    open func stopMagnetometerUpdates() { inner?.stopMagnetometerUpdates() }

    // MARK: Device motion

    /// The frames device motion can use with the system source (empty without one).
    open class func availableAttitudeReferenceFrames() -> CMAttitudeReferenceFrame {
        var set: CMAttitudeReferenceFrame = []
        for f in SystemMotion.service?.availableReferenceFrames ?? [] { set.insert(CMAttitudeReferenceFrame(f)) }
        return set
    }

    /// The frame in use; after a stop the last one used; `xArbitraryZVertical` before any start.
    /// Honest: `xMagneticNorthZVertical` when `xTrueNorthZVertical` had no location to use.
    open var attitudeReferenceFrame: CMAttitudeReferenceFrame {
        guard let inner, inner.isDeviceMotionActive || lock.withLock({ started }) else { return .xArbitraryZVertical }
        return CMAttitudeReferenceFrame(inner.attitudeReferenceFrame)
    }
    private var started = false

    /// No display on a headless board: stored and otherwise ignored.
    open var showsDeviceMovementDisplay: Bool {
        get { lock.withLock { _showsDeviceMovementDisplay } }
        set { lock.withLock { _showsDeviceMovementDisplay = newValue } }
    }

    open func startDeviceMotionUpdates() { startDeviceMotionUpdates(using: .xArbitraryZVertical) }
    open func startDeviceMotionUpdates(using referenceFrame: CMAttitudeReferenceFrame) {
        lock.withLock { started = true }
        inner?.startDeviceMotionUpdates(using: referenceFrame.edgeMotionFrame)
    }
    open func startDeviceMotionUpdates(to queue: OperationQueue, withHandler handler: @escaping CMDeviceMotionHandler) {
        startDeviceMotionUpdates(using: .xArbitraryZVertical, to: queue, withHandler: handler)
    }
    open func startDeviceMotionUpdates(using referenceFrame: CMAttitudeReferenceFrame, to queue: OperationQueue,
                                       withHandler handler: @escaping CMDeviceMotionHandler) {
        guard let inner else { return unavailable(queue, handler, "device motion") }
        lock.withLock { started = true }
        inner.startDeviceMotionUpdates(using: referenceFrame.edgeMotionFrame, to: delivery,
                                       withHandler: forward(queue, handler) { CMDeviceMotion($0) })
    }
    open func stopDeviceMotionUpdates() { inner?.stopDeviceMotionUpdates() }

    deinit { inner?.stopAllUpdates() }
}
