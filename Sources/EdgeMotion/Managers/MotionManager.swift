import Dispatch
import MotionCore
import Sensors

/// Core Motion's `CMMotionManager` on a Linux board: accelerometer, gyroscope, magnetometer and
/// fused device-motion updates, pushed to a handler on your queue, as an `AsyncSequence`, or
/// pulled from the `…Data` properties.
///
/// ```swift
/// let manager = MotionManager.simulator(scenario: .walking)
/// manager.accelerometerUpdateInterval = 1.0 / 50
/// manager.startAccelerometerUpdates(to: .main) { data, error in … }
/// ```
///
/// Every manager of a source shares one pipeline (`MotionService`): one acquisition and one
/// processing thread however many managers run, each with its own rates. Each stream of a
/// manager is "active" only if *its own* start was called.
///
/// Threading: `Sendable`; call from any thread. Handlers run on the `DispatchQueue` you pass.
/// Delivery cost: the per-sample path allocates nothing; pushing to a handler or stream
/// allocates once per dispatched batch (one array and one block). Above `batchingThreshold` Hz
/// values are grouped into one dispatch per `1 / batchingThreshold` seconds (the handler is
/// still called once per value). Pull-only updates allocate nothing.
public final class MotionManager: Sendable {
    /// The shared pipeline this manager is a client of.
    public let service: MotionService
    /// Handler dispatches per second above which values are grouped (Hz).
    public let batchingThreshold: Double

    private let accelerometer: StreamChannel<AccelerometerData>
    private let gyro: StreamChannel<GyroData>
    private let magnetometer: StreamChannel<MagnetometerData>
    private let motion: StreamChannel<DeviceMotion>

    /// A manager on `source`, sharing the pipeline of every other manager of that source object.
    public convenience init(source: any IMUSource) {
        self.init(service: .shared(for: source))
    }

    /// A manager on an existing service (for instance the agent's).
    public init(service: MotionService, batchingThreshold: Double = 100) {
        self.service = service
        self.batchingThreshold = batchingThreshold
        let interval = 0.01
        accelerometer = StreamChannel(kind: .sensor(.accelerometer), service: service, interval: interval,
                                      dispatchRate: batchingThreshold, fromSample: { $0.accelerometerData }, fromMotion: nil)
        gyro = StreamChannel(kind: .sensor(.gyroscope), service: service, interval: interval,
                             dispatchRate: batchingThreshold, fromSample: { $0.gyroData }, fromMotion: nil)
        magnetometer = StreamChannel(kind: .sensor(.magnetometer), service: service, interval: interval,
                                     dispatchRate: batchingThreshold, fromSample: { $0.magnetometerData }, fromMotion: nil)
        motion = StreamChannel(kind: .motion, service: service, interval: interval,
                               dispatchRate: batchingThreshold, fromSample: nil, fromMotion: { $0 })
    }

    /// A manager on the built-in simulator (no hardware needed), at `rate` Hz in real time.
    public static func simulator(scenario: SimulationScenario = .walking, rate: Double = 200, gyroscope: Bool = true,
                                 magnetometer: Bool = true, seed: UInt64 = 1) -> MotionManager {
        let source = SimulatedIMU(options: SimulatorOptions(
            scenario: scenario, seed: seed, realTime: true, includeGyroscope: gyroscope, includeMagnetometer: magnetometer))
        return MotionManager(service: MotionService(
            source: source, configuration: MotionService.libraryConfiguration(for: source, rate: rate)))
    }

    /// A manager replaying a recording (`../shared/data` CSV schemas, plain or gzip). Throws
    /// `SensorError` naming the file when it cannot be read.
    public static func replay(path: String, speed: ReplaySource.Speed = .recorded, loop: Bool = false) throws -> MotionManager {
        let source = try ReplaySource(path: path, speed: speed, loop: loop)
        return MotionManager(service: MotionService(
            source: source, configuration: MotionService.libraryConfiguration(for: source, rate: source.recordedRate)))
    }

    /// A manager on an IMU chip on an I2C bus (`/dev/i2c-<bus>`), at about `rate` Hz (rounded up
    /// to a rate the chip has). `dataReady` times samples from the chip's INT pin; without it a
    /// timer paces them. Errors opening the bus arrive as `MotionError.sourceStartFailed`.
    ///
    /// `chipEvents`: program the chip's own engines (needs `dataReady`; MPU-6050 motion,
    /// LSM6DSOX wake-up, free-fall, tap and 6D orientation, BMI160 any-motion, low-g and tap) for the events this configuration hands
    /// to the chip (`chipMotion`, `chipFreeFall`, `chipTap`, `chipOrientation`), in its detectors'
    /// units (the 6D faces are the chip's axes: use it with the chip mounted as the board); give the same
    /// configuration to `MotionEventManager`. An engine the chip lacks makes the start fail.
    public static func i2c(bus: Int = 1, address: UInt16 = 0x68, chip: IMUChipModel = .mpu6050, rate: Double = 200,
                           dataReady: DataReadyLine.Configuration? = nil, chipEvents: MotionEventConfiguration? = nil) -> MotionManager {
        let c = chipEvents
        let source = I2CIMUSource(
            bus: bus, address: address, chip: chip, dataReady: dataReady,
            motionInterrupt: c.flatMap { $0.chipMotion ? MotionInterruptSettings($0.anyMotion) : nil },
            freeFallInterrupt: c.flatMap { $0.chipFreeFall ? FreeFallInterruptSettings($0.freeFall) : nil },
            tapInterrupt: c.flatMap { $0.chipTap ? TapInterruptSettings($0.tap) : nil },
            orientationInterrupt: c.flatMap { $0.chipOrientation ? OrientationInterruptSettings($0.orientation, lowPassHz: $0.tiltCutoff) : nil })
        return MotionManager(service: MotionService(
            source: source, configuration: MotionService.libraryConfiguration(for: source, rate: rate)))
    }

    /// A manager on a Linux IIO device (`device`: name, label or index) through libiio, at about
    /// `rate` Hz.
    public static func iio(uri: String = "local:", device: String, rate: Double = 200) -> MotionManager {
        let source = IIOSource(uri: uri, device: device)
        return MotionManager(service: MotionService(
            source: source, configuration: MotionService.libraryConfiguration(for: source, rate: rate)))
    }

    // MARK: Availability

    public var isAccelerometerAvailable: Bool { accelerometer.isAvailable }
    public var isGyroAvailable: Bool { gyro.isAvailable }
    public var isMagnetometerAvailable: Bool { magnetometer.isAvailable }
    /// Needs an accelerometer. Without a gyroscope the attitude is tilt only (from gravity) and
    /// `rotationRate` is zero; without a magnetometer only `xArbitraryZVertical` is available.
    public var isDeviceMotionAvailable: Bool { motion.isAvailable }

    // MARK: Activity (this manager's own starts only)

    public var isAccelerometerActive: Bool { accelerometer.isActive }
    public var isGyroActive: Bool { gyro.isActive }
    public var isMagnetometerActive: Bool { magnetometer.isActive }
    public var isDeviceMotionActive: Bool { motion.isActive }

    // MARK: Update intervals

    /// Seconds between accelerometer updates. Reading it back gives the interval actually
    /// delivered: the source rate divided by a whole number, never faster than the source.
    /// Takes effect at once on running updates. Default 0.01 s.
    public var accelerometerUpdateInterval: Double {
        get { accelerometer.interval }
        set { accelerometer.interval = newValue }
    }
    /// Seconds between gyroscope updates (see `accelerometerUpdateInterval`).
    public var gyroUpdateInterval: Double {
        get { gyro.interval }
        set { gyro.interval = newValue }
    }
    /// Seconds between magnetometer updates (see `accelerometerUpdateInterval`).
    public var magnetometerUpdateInterval: Double {
        get { magnetometer.interval }
        set { magnetometer.interval = newValue }
    }
    /// Seconds between device-motion updates (see `accelerometerUpdateInterval`).
    public var deviceMotionUpdateInterval: Double {
        get { motion.interval }
        set { motion.interval = newValue }
    }

    // MARK: Latest values (pull)

    /// The newest accelerometer reading (g, sensor frame) of this manager's updates; `nil`
    /// before the first one after `startAccelerometerUpdates`.
    public var accelerometerData: AccelerometerData? { accelerometer.latest }
    /// The newest raw gyroscope reading (rad/s, sensor frame); `nil` before the first.
    public var gyroData: GyroData? { gyro.latest }
    /// The newest raw magnetometer reading (µT, sensor frame); `nil` before the first.
    public var magnetometerData: MagnetometerData? { magnetometer.latest }
    /// The newest fused device motion; `nil` before the first.
    public var deviceMotion: DeviceMotion? { motion.latest }

    // MARK: Accelerometer

    /// Starts updates for pulling `accelerometerData`.
    public func startAccelerometerUpdates() { accelerometer.start(.pull, shape: .pull) }
    /// Starts updates pushed to `handler` on `queue`, one call per reading. Errors arrive once
    /// as `(nil, error)`: `.notAvailable`, `.sourceStartFailed`, `.sourceFailed`.
    public func startAccelerometerUpdates(to queue: DispatchQueue,
                                          withHandler handler: @escaping @Sendable (AccelerometerData?, MotionError?) -> Void) {
        accelerometer.start(.each(queue, handler), shape: .each)
    }
    /// Starts updates as an `AsyncSequence`; it finishes on `stopAccelerometerUpdates()`, at the
    /// end of a recording, or by throwing an error that prevented the start.
    public func accelerometerUpdates() -> AsyncThrowingStream<AccelerometerData, any Error> {
        let (stream, continuation) = AsyncThrowingStream<AccelerometerData, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        accelerometer.start(.stream(continuation), shape: .each)
        return stream
    }
    public func stopAccelerometerUpdates() { accelerometer.stop() }

    // MARK: Gyroscope

    public func startGyroUpdates() { gyro.start(.pull, shape: .pull) }
    public func startGyroUpdates(to queue: DispatchQueue, withHandler handler: @escaping @Sendable (GyroData?, MotionError?) -> Void) {
        gyro.start(.each(queue, handler), shape: .each)
    }
    public func gyroUpdates() -> AsyncThrowingStream<GyroData, any Error> {
        let (stream, continuation) = AsyncThrowingStream<GyroData, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        gyro.start(.stream(continuation), shape: .each)
        return stream
    }
    public func stopGyroUpdates() { gyro.stop() }

    // MARK: Magnetometer

    public func startMagnetometerUpdates() { magnetometer.start(.pull, shape: .pull) }
    public func startMagnetometerUpdates(to queue: DispatchQueue,
                                         withHandler handler: @escaping @Sendable (MagnetometerData?, MotionError?) -> Void) {
        magnetometer.start(.each(queue, handler), shape: .each)
    }
    public func magnetometerUpdates() -> AsyncThrowingStream<MagnetometerData, any Error> {
        let (stream, continuation) = AsyncThrowingStream<MagnetometerData, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        magnetometer.start(.stream(continuation), shape: .each)
        return stream
    }
    public func stopMagnetometerUpdates() { magnetometer.stop() }

    // MARK: Device motion

    /// The frames device motion can use on this source (`availableAttitudeReferenceFrames()`,
    /// a class method in Core Motion; here it depends on the source and the configuration).
    public func availableAttitudeReferenceFrames() -> [AttitudeReferenceFrame] { service.availableReferenceFrames }

    /// The frame of the running device-motion updates; after a stop, the last one used; the
    /// default frame when none was ever started (Core Motion's rule). It is the frame actually
    /// used: `xMagneticNorthZVertical` when `xTrueNorthZVertical` was asked without a declination.
    public var attitudeReferenceFrame: AttitudeReferenceFrame {
        motion.lastFrame ?? defaultFrame
    }

    private var defaultFrame: AttitudeReferenceFrame {
        let configured = service.configuration.referenceFrame
        return availableAttitudeReferenceFrames().contains(configured) ? configured : .xArbitraryZVertical
    }

    /// Starts device-motion updates in the default frame, for pulling `deviceMotion`.
    public func startDeviceMotionUpdates() { startDeviceMotionUpdates(using: defaultFrame) }

    /// Starts device-motion updates in `frame`, for pulling `deviceMotion`.
    public func startDeviceMotionUpdates(using frame: AttitudeReferenceFrame) {
        let (resolved, warnings) = resolve(frame)
        motion.start(.pull, shape: .pull, frame: resolved, needsHeading: needsHeading(resolved), warnings: warnings)
    }

    /// Starts device-motion updates in the default frame, pushed to `handler` on `queue`.
    public func startDeviceMotionUpdates(to queue: DispatchQueue,
                                         withHandler handler: @escaping @Sendable (DeviceMotion?, MotionError?) -> Void) {
        startDeviceMotionUpdates(using: defaultFrame, to: queue, withHandler: handler)
    }

    /// Starts device-motion updates in `frame`, pushed to `handler` on `queue`. Errors arrive
    /// once each as `(nil, error)`:
    /// - `.trueNorthNotAvailable`: `xTrueNorthZVertical` without a declination; attitude is
    ///   referenced to magnetic north instead (`DeviceMotion.referenceFrame` and
    ///   `attitudeReferenceFrame` say so).
    /// - `.notAvailable`: the frame needs a magnetometer the source lacks; updates run in
    ///   `xArbitraryZVertical`.
    /// - `.deviceRequiresMovement`: a north frame has no heading yet (magnetometer field not
    ///   observable); updates continue and gain a heading once it is.
    /// - `.sourceStartFailed` (updates do not start), `.sourceFailed` (retrying).
    public func startDeviceMotionUpdates(using frame: AttitudeReferenceFrame, to queue: DispatchQueue,
                                         withHandler handler: @escaping @Sendable (DeviceMotion?, MotionError?) -> Void) {
        let (resolved, warnings) = resolve(frame)
        motion.start(.each(queue, handler), shape: .each, frame: resolved, needsHeading: needsHeading(resolved), warnings: warnings)
    }

    /// Device-motion updates as an `AsyncSequence` (finishes on `stopDeviceMotionUpdates()`).
    public func deviceMotionUpdates(using frame: AttitudeReferenceFrame? = nil) -> AsyncThrowingStream<DeviceMotion, any Error> {
        let (stream, continuation) = AsyncThrowingStream<DeviceMotion, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let (resolved, warnings) = resolve(frame ?? defaultFrame)
        motion.start(.stream(continuation), shape: .each, frame: resolved, needsHeading: needsHeading(resolved), warnings: warnings)
        return stream
    }

    public func stopDeviceMotionUpdates() { motion.stop() }

    /// The frame actually used for a requested one, and the errors that explain a difference.
    private func resolve(_ frame: AttitudeReferenceFrame) -> (AttitudeReferenceFrame, [MotionError]) {
        let hasMagnetometer = service.capabilities.sensors.contains(.magnetometer)
        if frame.requiresMagnetometer, !hasMagnetometer {
            return (.xArbitraryZVertical, [MotionError(
                .notAvailable, detail: "\(frame.rawValue) needs a magnetometer and \(service.capabilities.name) has none; using xArbitraryZVertical")])
        }
        if frame == .xTrueNorthZVertical, service.configuration.declination == nil {
            return (.xMagneticNorthZVertical, [MotionError(
                .trueNorthNotAvailable,
                detail: "no magnetic declination known: set fusion.latitude and fusion.longitude (or PipelineConfiguration.declination); attitude is referenced to magnetic north")])
        }
        return (frame, [])
    }

    private func needsHeading(_ frame: AttitudeReferenceFrame) -> Bool {
        frame == .xMagneticNorthZVertical || frame == .xTrueNorthZVertical
    }

    // MARK: Everything

    /// Stops every update this manager started.
    public func stopAllUpdates() {
        stopAccelerometerUpdates()
        stopGyroUpdates()
        stopMagnetometerUpdates()
        stopDeviceMotionUpdates()
    }

    deinit {
        accelerometer.stop()
        gyro.stop()
        magnetometer.stop()
        motion.stop()
    }
}
