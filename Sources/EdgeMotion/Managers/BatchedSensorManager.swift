import Dispatch
import MotionCore
import Sensors

/// Core Motion's `CMBatchedSensorManager`: accelerometer and device motion at the source's full
/// rate, delivered as arrays, one per `batchInterval` (Core Motion: 800 Hz / 200 Hz, one batch a
/// second). For high rates this is far cheaper than one handler call per value.
///
/// Shares the source's pipeline with every `MotionManager`. Delivery allocates one array (and
/// one block) per batch; the per-sample path allocates nothing.
public final class BatchedSensorManager: Sendable {
    public let service: MotionService
    /// Seconds of data per batch.
    public let batchInterval: Double

    private let accelerometer: StreamChannel<AccelerometerData>
    private let motion: StreamChannel<DeviceMotion>

    public convenience init(source: any IMUSource, batchInterval: Double = 1) {
        self.init(service: .shared(for: source), batchInterval: batchInterval)
    }

    public init(service: MotionService, batchInterval: Double = 1) {
        self.service = service
        self.batchInterval = max(batchInterval, 1e-3)
        let fastest = 1e-9  // capped to the source rate
        accelerometer = StreamChannel(kind: .sensor(.accelerometer), service: service, interval: fastest,
                                      dispatchRate: 1 / self.batchInterval, fromSample: { $0.accelerometerData }, fromMotion: nil)
        motion = StreamChannel(kind: .motion, service: service, interval: fastest,
                               dispatchRate: 1 / self.batchInterval, fromSample: nil, fromMotion: { $0 })
    }

    /// Whether the source has an accelerometer (`isAccelerometerSupported`).
    public var isAccelerometerSupported: Bool { accelerometer.isAvailable }
    /// Whether device motion can be computed (`isDeviceMotionSupported`).
    public var isDeviceMotionSupported: Bool { motion.isAvailable }
    /// Accelerometer samples per second in the batches, Hz (the source rate).
    public var accelerometerDataFrequency: Double { accelerometer.effectiveRate }
    /// Device-motion states per second in the batches, Hz (the source rate).
    public var deviceMotionDataFrequency: Double { motion.effectiveRate }

    public var isAccelerometerActive: Bool { accelerometer.isActive }
    public var isDeviceMotionActive: Bool { motion.isActive }

    /// The newest complete accelerometer batch, oldest sample first; `nil` before the first.
    public var accelerometerBatch: [AccelerometerData]? { accelerometer.latestBatch }
    /// The newest complete device-motion batch; `nil` before the first.
    public var deviceMotionBatch: [DeviceMotion]? { motion.latestBatch }


    /// Starts batches for pulling `accelerometerBatch`.
    public func startAccelerometerUpdates() { accelerometer.start(.pull, shape: .batches(interval: batchInterval)) }
    /// Starts batches pushed to `handler` on `queue` (default: a private serial queue).
    public func startAccelerometerUpdates(to queue: DispatchQueue = DispatchQueue(label: "edgemotion.batched"),
                                          handler: @escaping @Sendable ([AccelerometerData], MotionError?) -> Void) {
        accelerometer.start(.batches(queue, handler), shape: .batches(interval: batchInterval))
    }
    /// Batches as an `AsyncSequence`, finishing on `stopAccelerometerUpdates()`.
    public func accelerometerUpdates() -> AsyncThrowingStream<[AccelerometerData], any Error> {
        let (stream, continuation) = AsyncThrowingStream<[AccelerometerData], any Error>.makeStream(bufferingPolicy: .bufferingNewest(64))
        accelerometer.start(.batchStream(continuation), shape: .batches(interval: batchInterval))
        return stream
    }
    public func stopAccelerometerUpdates() { accelerometer.stop() }

    /// Starts device-motion batches (pipeline frame) for pulling `deviceMotionBatch`.
    public func startDeviceMotionUpdates() { motion.start(.pull, shape: .batches(interval: batchInterval)) }
    public func startDeviceMotionUpdates(to queue: DispatchQueue = DispatchQueue(label: "edgemotion.batched"),
                                         handler: @escaping @Sendable ([DeviceMotion], MotionError?) -> Void) {
        motion.start(.batches(queue, handler), shape: .batches(interval: batchInterval))
    }
    public func deviceMotionUpdates() -> AsyncThrowingStream<[DeviceMotion], any Error> {
        let (stream, continuation) = AsyncThrowingStream<[DeviceMotion], any Error>.makeStream(bufferingPolicy: .bufferingNewest(64))
        motion.start(.batchStream(continuation), shape: .batches(interval: batchInterval))
        return stream
    }
    public func stopDeviceMotionUpdates() { motion.stop() }

    deinit {
        accelerometer.stop()
        motion.stop()
    }
}
