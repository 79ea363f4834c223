#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Testing
import TestSupport
import Synchronization
import MotionCore
import Sensors
@testable import EdgeMotion

/// Collects what handlers receive, from any thread.
final class Received<Element: Sendable>: Sendable {
    private let state = Mutex<(values: [Element], errors: [MotionError], offQueue: Int)>(([], [], 0))

    func handler(checking key: DispatchSpecificKey<Int>? = nil) -> @Sendable (Element?, MotionError?) -> Void {
        { value, error in
            let wrongQueue = key.map { DispatchQueue.getSpecific(key: $0) != 42 } ?? false
            self.state.withLock { s in
                if let value { s.values.append(value) }
                if let error { s.errors.append(error) }
                if wrongQueue { s.offQueue += 1 }
            }
        }
    }

    var values: [Element] { state.withLock { $0.values } }
    var errors: [MotionError] { state.withLock { $0.errors } }
    var offQueue: Int { state.withLock { $0.offQueue } }
}

/// Polls `condition` every 5 ms until it holds or `seconds` pass (generous: the build machine is
/// shared); returns whether it held.
func eventually(_ seconds: Double = 15, _ condition: () -> Bool) -> Bool {
    let deadline = MonotonicClock.nowNanos() + UInt64(seconds * 1e9)
    while MonotonicClock.nowNanos() < deadline {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}

@Suite("MotionManager", .hangLimit, .ownThread)
struct MotionManagerTests {
    @Test func availabilityFollowsTheSensorsTheSourceHas() {
        let full = MotionManager(source: GatedSource(sensors: .all))
        #expect(full.isAccelerometerAvailable && full.isGyroAvailable && full.isMagnetometerAvailable && full.isDeviceMotionAvailable)
        #expect(full.availableAttitudeReferenceFrames() == [.xArbitraryZVertical, .xArbitraryCorrectedZVertical, .xMagneticNorthZVertical])

        let inertial = MotionManager(source: GatedSource(sensors: .inertial))
        #expect(inertial.isAccelerometerAvailable && inertial.isGyroAvailable && inertial.isDeviceMotionAvailable)
        #expect(!inertial.isMagnetometerAvailable)
        #expect(inertial.availableAttitudeReferenceFrames() == [.xArbitraryZVertical])
        #expect(inertial.attitudeReferenceFrame == .xArbitraryZVertical)

        let accelerometerOnly = MotionManager(source: GatedSource(sensors: .accelerometer))
        #expect(accelerometerOnly.isAccelerometerAvailable && !accelerometerOnly.isGyroAvailable && !accelerometerOnly.isMagnetometerAvailable)

        let simulatorWithoutMagnetometer = MotionManager.simulator(scenario: .stationary, magnetometer: false)
        #expect(simulatorWithoutMagnetometer.isGyroAvailable && !simulatorWithoutMagnetometer.isMagnetometerAvailable)
    }

    @Test func trueNorthIsAvailableOnlyWithADeclination() {
        let source = GatedSource()
        var configuration = MotionService.libraryConfiguration(for: source)
        configuration.declination = 0.05
        let manager = MotionManager(service: MotionService(source: source, configuration: configuration))
        #expect(manager.availableAttitudeReferenceFrames().contains(.xTrueNorthZVertical))
        #expect(!MotionManager(source: GatedSource()).availableAttitudeReferenceFrames().contains(.xTrueNorthZVertical))
    }

    @Test func updateIntervalsAreCappedToTheSourceAndReadBackAsDelivered() {
        let manager = MotionManager(source: GatedSource(rate: 200))
        manager.accelerometerUpdateInterval = 1.0 / 50
        #expect(abs(manager.accelerometerUpdateInterval - 0.02) < 1e-12)
        manager.gyroUpdateInterval = 1.0 / 1000          // faster than the source: capped at 200 Hz
        #expect(abs(manager.gyroUpdateInterval - 0.005) < 1e-12)
        manager.magnetometerUpdateInterval = 1.0 / 60    // 200/60 → every 3rd sample
        #expect(abs(manager.magnetometerUpdateInterval - 3.0 / 200) < 1e-12)
        manager.deviceMotionUpdateInterval = 1
        #expect(abs(manager.deviceMotionUpdateInterval - 1) < 1e-12)
        manager.deviceMotionUpdateInterval = -1          // ignored, like a nonsensical value in Core Motion
        #expect(abs(manager.deviceMotionUpdateInterval - 1) < 1e-12)
    }

    @Test func eachStreamIsActiveOnlyAfterItsOwnStart() {
        let source = GatedSource()
        let a = MotionManager(source: source)
        let b = MotionManager(source: source)
        #expect(a.service === b.service)
        #expect(!a.isAccelerometerActive)
        a.startAccelerometerUpdates()
        #expect(a.isAccelerometerActive)
        #expect(!a.isGyroActive && !a.isMagnetometerActive && !a.isDeviceMotionActive)
        #expect(!b.isAccelerometerActive)   // the other manager did not start it
        b.startDeviceMotionUpdates()
        #expect(b.isDeviceMotionActive && !a.isDeviceMotionActive)
        a.stopAccelerometerUpdates()
        #expect(!a.isAccelerometerActive && b.isDeviceMotionActive)
        b.stopDeviceMotionUpdates()
        #expect(!b.isDeviceMotionActive)
    }

    @Test func pullReturnsNilBeforeTheFirstSampleThenTheLatest() throws {
        let source = GatedSource(rate: 200)
        let manager = MotionManager(source: source)
        #expect(manager.accelerometerData == nil)
        manager.startAccelerometerUpdates()
        manager.startDeviceMotionUpdates()
        usleep(50_000)
        #expect(manager.accelerometerData == nil)   // started, but the source has produced nothing
        #expect(manager.deviceMotion == nil)
        source.open()
        #expect(eventually { manager.accelerometerData != nil && manager.deviceMotion != nil })
        let data = try #require(manager.accelerometerData)
        #expect(abs(data.acceleration.z + 1) < 1e-9)     // level, face up: z = −1 g
        let first = data.timestamp
        #expect(eventually { (manager.accelerometerData?.timestamp ?? 0) > first + 0.05 })  // it keeps moving
        manager.stopAllUpdates()
    }

    @Test func handlersRunOnTheGivenQueueAtTheRequestedRate() {
        let source = GatedSource(rate: 200, count: 1000)
        let manager = MotionManager(source: source)
        let key = DispatchSpecificKey<Int>()
        let queue = DispatchQueue(label: "test.handlers")
        queue.setSpecific(key: key, value: 42)
        let received = Received<AccelerometerData>()
        manager.accelerometerUpdateInterval = 1.0 / 50
        manager.startAccelerometerUpdates(to: queue, withHandler: received.handler(checking: key))
        source.open()
        #expect(eventually { received.values.count == 250 })
        let values = received.values
        #expect(received.offQueue == 0)
        #expect(received.errors.isEmpty)
        let spacings = zip(values.dropFirst(), values).map { $0.timestamp - $1.timestamp }
        #expect(spacings.allSatisfy { abs($0 - 0.02) < 1e-6 })
    }

    @Test func twoManagersOnOnePipelineGetTheirOwnRates() {
        let source = GatedSource(rate: 200, count: 2000)
        let fast = MotionManager(source: source)
        let slow = MotionManager(source: source)
        let queue = DispatchQueue(label: "test.two")
        let fastValues = Received<AccelerometerData>()
        let slowValues = Received<AccelerometerData>()
        let slowMotion = Received<DeviceMotion>()
        fast.accelerometerUpdateInterval = 1.0 / 50
        slow.accelerometerUpdateInterval = 1.0 / 10
        slow.deviceMotionUpdateInterval = 1.0 / 25
        fast.startAccelerometerUpdates(to: queue, withHandler: fastValues.handler())
        slow.startAccelerometerUpdates(to: queue, withHandler: slowValues.handler())
        slow.startDeviceMotionUpdates(to: queue, withHandler: slowMotion.handler())
        let pipeline = fast.service.pipeline
        #expect(pipeline != nil && pipeline === slow.service.pipeline)
        source.open()
        #expect(eventually { fastValues.values.count == 500 && slowValues.values.count == 100 && slowMotion.values.count == 250 })
        #expect(source.starts.load(ordering: .relaxed) == 1)   // one pipeline, one source start
        let slowTimes = slowValues.values.map(\.timestamp)
        #expect(zip(slowTimes.dropFirst(), slowTimes).allSatisfy { abs($0 - $1 - 0.1) < 1e-6 })
    }

    @Test func changingTheIntervalWhileRunningTakesEffect() {
        let source = GatedSource(rate: 200)
        let manager = MotionManager(source: source)
        let received = Received<GyroData>()
        manager.gyroUpdateInterval = 1.0 / 100
        manager.startGyroUpdates(to: DispatchQueue(label: "test.interval"), withHandler: received.handler())
        source.open()
        #expect(eventually { received.values.count >= 20 })
        manager.gyroUpdateInterval = 1.0 / 20
        let switched = received.values.count
        #expect(eventually { received.values.count >= switched + 15 })
        manager.stopGyroUpdates()
        let times = received.values.suffix(8).map(\.timestamp)
        #expect(zip(times.dropFirst(), times).allSatisfy { abs($0 - $1 - 0.05) < 1e-6 })
    }

    @Test func noHandlerRunsAfterStopReturnsOnTheHandlersQueue() {
        let source = GatedSource(rate: 200, open: true)
        let manager = MotionManager(source: source)
        let queue = DispatchQueue(label: "test.stop")
        let received = Received<AccelerometerData>()
        manager.accelerometerUpdateInterval = 1.0 / 200
        manager.startAccelerometerUpdates(to: queue, withHandler: received.handler())
        #expect(eventually { received.values.count >= 20 })
        let atStop = queue.sync { () -> Int in
            manager.stopAccelerometerUpdates()
            return received.values.count
        }
        usleep(100_000)
        #expect(received.values.count == atStop)
        #expect(!manager.isAccelerometerActive)
    }

    @Test func theAsyncSequenceFinishesOnStop() async throws {
        let source = GatedSource(rate: 200, open: true)
        let manager = MotionManager(source: source)
        manager.accelerometerUpdateInterval = 1.0 / 100
        var count = 0
        for try await data in manager.accelerometerUpdates() {
            #expect(abs(data.acceleration.z + 1) < 1e-9)
            count += 1
            if count == 10 { manager.stopAccelerometerUpdates() }
            if count > 5000 { break }   // would mean the stream never finished
        }
        // After the stop, at most what the stream had buffered (bufferingNewest(1024)) arrives.
        #expect(count >= 10 && count <= 10 + 1024 + 64, "received \(count)")
        #expect(!manager.isAccelerometerActive)
    }

    @Test func theAsyncSequenceFinishesAtTheEndOfARecording() async throws {
        let source = GatedSource(rate: 200, count: 300, open: true)
        let manager = MotionManager(source: source)
        manager.deviceMotionUpdateInterval = 1.0 / 200
        var count = 0
        for try await _ in manager.deviceMotionUpdates() { count += 1 }
        #expect(count == 300)
    }

    @Test func aMissingSensorIsReportedOnceAndTheStreamStaysInactive() async {
        let manager = MotionManager(source: GatedSource(sensors: .accelerometer, open: true))
        let received = Received<GyroData>()
        manager.startGyroUpdates(to: DispatchQueue(label: "test.missing"), withHandler: received.handler())
        #expect(eventually { !received.errors.isEmpty })
        usleep(50_000)
        #expect(received.errors == [.notAvailable])
        #expect(received.values.isEmpty)
        #expect(!manager.isGyroActive)
        var threw: (any Error)?
        do {
            for try await _ in manager.magnetometerUpdates() {}
        } catch {
            threw = error
        }
        #expect((threw as? MotionError) == .notAvailable)
    }

    @Test func aNorthFrameWithoutAHeadingAsksForMovementOnce() {
        // A magnetometer that reads no field at all: north can never be found.
        let source = GatedSource(rate: 200, count: 400, field: .zero)
        let manager = MotionManager(source: source)
        let received = Received<DeviceMotion>()
        manager.deviceMotionUpdateInterval = 1.0 / 100
        manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical, to: DispatchQueue(label: "test.north"),
                                         withHandler: received.handler())
        #expect(manager.attitudeReferenceFrame == .xMagneticNorthZVertical)
        source.open()
        #expect(eventually { received.values.count == 200 })
        #expect(received.errors == [.deviceRequiresMovement])
        #expect(received.values.allSatisfy { $0.heading == -1 })
    }

    @Test func aNorthFrameWithAHorizontalFieldHasAHeadingAndNoError() {
        let source = GatedSource(rate: 200, count: 400)
        let manager = MotionManager(source: source)
        let received = Received<DeviceMotion>()
        manager.deviceMotionUpdateInterval = 1.0 / 100
        manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical, to: DispatchQueue(label: "test.north2"),
                                         withHandler: received.handler())
        source.open()
        #expect(eventually { received.values.count == 200 })
        #expect(received.errors.isEmpty)
        // Field (0, 20, −40) in a level device: magnetic north along the device's +y axis.
        #expect(abs((received.values.last?.heading ?? -1) - 0) < 1 || abs((received.values.last?.heading ?? -1) - 360) < 1)
        #expect(received.values.allSatisfy { $0.referenceFrame == .xMagneticNorthZVertical })
    }

    @Test func trueNorthWithoutADeclinationIsReportedOnceAndFallsBackToMagneticNorth() {
        let source = GatedSource(rate: 200, count: 400)
        let manager = MotionManager(source: source)
        let received = Received<DeviceMotion>()
        manager.deviceMotionUpdateInterval = 1.0 / 100
        manager.startDeviceMotionUpdates(using: .xTrueNorthZVertical, to: DispatchQueue(label: "test.true"),
                                         withHandler: received.handler())
        source.open()
        #expect(eventually { received.values.count == 200 })
        #expect(received.errors == [.trueNorthNotAvailable])
        #expect(received.values.last?.referenceFrame == .xMagneticNorthZVertical)
    }

    @Test func aFrameNeedingAMagnetometerFallsBackOnASourceWithout() {
        let source = GatedSource(rate: 200, count: 200, sensors: .inertial)
        let manager = MotionManager(source: source)
        let received = Received<DeviceMotion>()
        manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical, to: DispatchQueue(label: "test.nomag"),
                                         withHandler: received.handler())
        #expect(manager.attitudeReferenceFrame == .xArbitraryZVertical)
        source.open()
        #expect(eventually { received.values.count == 100 })   // default interval 0.01 s of a 200 Hz source
        #expect(received.errors == [.notAvailable])
        #expect(received.values.allSatisfy { $0.referenceFrame == .xArbitraryZVertical })
        #expect(manager.isDeviceMotionActive)
    }

    @Test func aSourceThatCannotStartIsReportedOnce() {
        let manager = MotionManager(source: FailingSource())
        let received = Received<AccelerometerData>()
        manager.startAccelerometerUpdates(to: DispatchQueue(label: "test.fail"), withHandler: received.handler())
        #expect(eventually { !received.errors.isEmpty })
        #expect(received.errors == [.sourceStartFailed])
        #expect(received.errors.first?.detail.contains("/dev/iio:device9") == true)
        #expect(!manager.isAccelerometerActive)
    }

    @Test func highRatesReachTheHandlerInGroupsButOneCallPerValue() {
        let source = GatedSource(rate: 1000, count: 2000)
        let manager = MotionManager(service: MotionService(
            source: source, configuration: MotionService.libraryConfiguration(for: source, rate: 1000)))
        #expect(abs(manager.accelerometerUpdateInterval - 0.01) < 1e-12)
        let received = Received<AccelerometerData>()
        manager.accelerometerUpdateInterval = 0.001
        manager.startAccelerometerUpdates(to: DispatchQueue(label: "test.fast"), withHandler: received.handler())
        source.open()
        #expect(eventually { received.values.count == 2000 })
        let sequence = received.values.map { UInt64(($0.timestamp - 1) * 1000 + 0.5) }
        #expect(sequence == Array(0..<2000).map(UInt64.init))   // every value, in order
    }

    @Test func anI2CChipIsDescribedBeforeItIsOpenedAndAMissingBusIsReportedOnce() {
        let mpu6050 = MotionManager.i2c(bus: 250, chip: .mpu6050)
        #expect(mpu6050.isAccelerometerAvailable && mpu6050.isGyroAvailable && !mpu6050.isMagnetometerAvailable)
        #expect(MotionManager.i2c(bus: 250, chip: .mpu9250).isMagnetometerAvailable)
        let received = Received<AccelerometerData>()
        mpu6050.startAccelerometerUpdates(to: DispatchQueue(label: "test.i2c"), withHandler: received.handler())
        #expect(eventually { !received.errors.isEmpty })
        #expect(received.errors == [.sourceStartFailed])
        #expect(received.errors.first?.detail.contains("i2c-250") == true)
        #expect(!mpu6050.isAccelerometerActive)
    }

    @Test func theSimulatorDrivesAManagerFromCodeAlone() {
        let manager = MotionManager.simulator(scenario: .stationary, rate: 100)
        manager.startDeviceMotionUpdates()
        #expect(eventually { manager.deviceMotion != nil })
        let g = manager.deviceMotion!.gravity
        #expect(abs((g.x * g.x + g.y * g.y + g.z * g.z).squareRoot() - 1) < 0.05)
        manager.stopDeviceMotionUpdates()
    }
}

/// A source whose device cannot be opened.
final class FailingSource: IMUSource, Sendable {
    let capabilities = SourceCapabilities(name: "iio:missing", sensors: .all, maximumRate: 100)
    func start(requestedRate: Double) throws -> SourceConfiguration {
        throw SensorError(.notFound, subject: "/dev/iio:device9", detail: "no such device; check the IIO driver is loaded")
    }
    func read(into buffer: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws -> ReadResult { .endOfStream }
    func stop() {}
}

@Suite("MotionManager.attitudeReferenceFrame follows Core Motion's rule", .hangLimit, .ownThread)
struct AttitudeReferenceFrameRuleTests {
    @Test("Default before any start, the frame in use while running, the last one after a stop")
    func lastFrameIsKeptAfterAStop() {
        let source = GatedSource(rate: 200, count: 200)
        let manager = MotionManager(source: source)
        #expect(manager.attitudeReferenceFrame == .xArbitraryCorrectedZVertical)   // the library default with a magnetometer
        manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
        #expect(manager.attitudeReferenceFrame == .xMagneticNorthZVertical)
        manager.stopDeviceMotionUpdates()
        #expect(manager.attitudeReferenceFrame == .xMagneticNorthZVertical)
    }

    @Test("True north without a declination: the frame in use is magnetic north, and it says so")
    func trueNorthFallbackIsHonest() {
        let source = GatedSource(rate: 200, count: 200)
        let manager = MotionManager(source: source)
        manager.startDeviceMotionUpdates(using: .xTrueNorthZVertical)
        #expect(manager.attitudeReferenceFrame == .xMagneticNorthZVertical)
        manager.stopDeviceMotionUpdates()
        #expect(manager.attitudeReferenceFrame == .xMagneticNorthZVertical)
    }
}
