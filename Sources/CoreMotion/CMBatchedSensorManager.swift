import Foundation
internal import EdgeMotion
internal import MotionCore
internal import Sensors

/// Core Motion's `CMBatchedSensorManager`: accelerometer and device motion delivered in batches
/// (one a second) at the source's rate. Thread-safe (EdgeMotion's manager locks its state).
open class CMBatchedSensorManager: NSObject, @unchecked Sendable {
    let inner: BatchedSensorManager?

    public override init() {
        inner = SystemMotion.service.map { BatchedSensorManager(service: $0) }
        super.init()
    }

    open class var isAccelerometerSupported: Bool {
        SystemMotion.service?.capabilities.sensors.contains(.accelerometer) ?? false
    }
    open class var isDeviceMotionSupported: Bool { isAccelerometerSupported }

    /// Hz of the samples in a batch.
    open var accelerometerDataFrequency: Int { Int((inner?.accelerometerDataFrequency ?? 0).rounded()) }
    open var deviceMotionDataFrequency: Int { Int((inner?.deviceMotionDataFrequency ?? 0).rounded()) }
    open var isAccelerometerActive: Bool { inner?.isAccelerometerActive ?? false }
    open var isDeviceMotionActive: Bool { inner?.isDeviceMotionActive ?? false }
    open var accelerometerBatch: [CMAccelerometerData]? { inner?.accelerometerBatch?.map(CMAccelerometerData.init) }
    open var deviceMotionBatch: [CMDeviceMotion]? { inner?.deviceMotionBatch?.map(CMDeviceMotion.init) }

    open func startAccelerometerUpdates() { inner?.startAccelerometerUpdates() }
    open func startAccelerometerUpdates(handler: @escaping ([CMAccelerometerData], (any Error)?) -> Void) {
        let box = HandlerBox(value: handler)
        inner?.startAccelerometerUpdates { batch, error in box.value(batch.map(CMAccelerometerData.init), error?.nsError) }
    }
    open func stopAccelerometerUpdates() { inner?.stopAccelerometerUpdates() }

    open func startDeviceMotionUpdates() { inner?.startDeviceMotionUpdates() }
    open func startDeviceMotionUpdates(handler: @escaping ([CMDeviceMotion], (any Error)?) -> Void) {
        let box = HandlerBox(value: handler)
        inner?.startDeviceMotionUpdates { batch, error in box.value(batch.map(CMDeviceMotion.init), error?.nsError) }
    }
    open func stopDeviceMotionUpdates() { inner?.stopDeviceMotionUpdates() }
}
