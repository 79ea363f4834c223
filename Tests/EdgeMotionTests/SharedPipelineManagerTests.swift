#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Testing
import Synchronization
import MotionCore
import Sensors
@testable import EdgeMotion
import TestSupport

@Suite("MotionService: one pipeline for the agent and every manager", .ownThread)
struct SharedPipelineManagerTests {
    @Test func aStaticOutputAndARuntimeManagerShareOnePipelineAtTheirOwnRates() throws {
        // The agent's shape: a static output (its MQTT publisher) with the configured streams,
        // and a library manager added at runtime with another rate.
        let source = GatedSource(rate: 200, count: 2000)
        let publisher = RecordingOutput()
        let configuration = PipelineConfiguration(
            requestedRate: 200, accelerometer: StreamSchedule(rate: 100, publishRate: 10),
            gyroscope: .disabled, magnetometer: .disabled, motion: .disabled)
        let service = MotionService(source: source, configuration: configuration, outputs: [publisher])
        let report = try service.start()
        #expect(report.streams[.accelerometer]?.rate == 100)
        let manager = MotionManager(service: service)
        let received = Received<AccelerometerData>()
        manager.accelerometerUpdateInterval = 1.0 / 20
        manager.startAccelerometerUpdates(to: DispatchQueue(label: "test.shared"), withHandler: received.handler())
        usleep(50_000)   // the consumer is attached before the first drain
        source.open()
        #expect(service.pipeline?.waitUntilEnded(timeout: .seconds(10)) == true)
        #expect(eventually { received.values.count == 200 })
        let published = publisher.lock.withLock { _ in publisher.batches[.accelerometer] ?? [] }
        #expect(published.flatMap { $0 }.count == 1000)
        #expect(source.starts.load(ordering: .relaxed) == 1)
        service.stop()
    }

    @Test func aHeldStartReadsNothingUntilReleasedSoALateConsumerSeesALosslessSourceFromItsFirstSample() throws {
        // The agent's order: start (to learn the sensors), attach activity and advisors, then go.
        // A scripted lossless source runs as fast as possible: unheld, it would be over long
        // before a consumer attached 100 ms later.
        let source = ScriptedSource(count: 2000, rate: 200)
        let service = MotionService(source: source, configuration: PipelineConfiguration(
            requestedRate: 200, accelerometer: .disabled, gyroscope: .disabled, magnetometer: .disabled, motion: .disabled))
        let report = try service.start(holdingDelivery: true)
        #expect(report.source.sensors.contains(.accelerometer))
        usleep(100_000)
        #expect(service.pipeline?.statistics.samplesProcessed == 0)
        let manager = MotionManager(service: service)
        let received = Received<AccelerometerData>()
        manager.accelerometerUpdateInterval = 1.0 / 200
        manager.startAccelerometerUpdates(to: DispatchQueue(label: "test.held"), withHandler: received.handler())
        service.beginDelivery()
        #expect(service.pipeline?.waitUntilEnded(timeout: .seconds(10)) == true)
        #expect(eventually { received.values.count == 2000 }, "\(received.values.count) of 2000 samples")
        manager.stopAccelerometerUpdates()
        service.stop()
    }

    @Test func thePipelineStopsWhenIdleAndRestartsForTheNextStart() {
        let source = GatedSource(rate: 200, open: true)
        let service = MotionService(source: source, idleTimeout: .milliseconds(100))
        let manager = MotionManager(service: service)
        manager.startAccelerometerUpdates()
        #expect(eventually { manager.accelerometerData != nil })
        let first = service.pipeline
        #expect(first != nil)
        manager.stopAccelerometerUpdates()
        #expect(eventually { service.pipeline == nil })
        #expect(first?.end == .stopped)
        manager.startGyroUpdates()
        #expect(eventually { manager.gyroData != nil })
        #expect(service.pipeline !== first)
        #expect(source.starts.load(ordering: .relaxed) == 2)
        manager.stopGyroUpdates()
    }

    @Test func stoppingOneManagerDoesNotStopAnother() {
        let source = GatedSource(rate: 200, open: true)
        let service = MotionService(source: source, idleTimeout: .milliseconds(50))
        let a = MotionManager(service: service)
        let b = MotionManager(service: service)
        a.startAccelerometerUpdates()
        b.startAccelerometerUpdates()
        #expect(eventually { a.accelerometerData != nil && b.accelerometerData != nil })
        a.stopAccelerometerUpdates()
        usleep(200_000)
        let before = b.accelerometerData?.timestamp ?? 0
        #expect(eventually { (b.accelerometerData?.timestamp ?? 0) > before + 0.05 })
        #expect(service.pipeline != nil)
        b.stopAccelerometerUpdates()
    }
}

@Suite("MotionService registry", .ownThread)
struct MotionServiceRegistryManagerTests {
    @Test func aManagerOnTheSourceOfAnExplicitServiceJoinsThatService() {
        let source = GatedSource(rate: 400)
        let explicit = MotionService(source: source, configuration: MotionService.libraryConfiguration(for: source, rate: 400))
        let joined = MotionManager(source: source)
        #expect(joined.service === explicit)
        #expect(abs(joined.accelerometerUpdateInterval - 0.01) < 1e-12)
        joined.accelerometerUpdateInterval = 0
        joined.accelerometerUpdateInterval = 1.0 / 400   // the explicit 400 Hz, not the 200 Hz default
        #expect(abs(joined.accelerometerUpdateInterval - 0.0025) < 1e-12)
        #expect(SensorRecorder(source: source).service === explicit)
    }
}

@Suite("MotionService life time", .ownThread)
struct MotionServiceLifetimeManagerTests {
    @Test func aServiceWithRunningManagersIsFreedAndStopsWhenTheLastManagerGoes() {
        let source = GatedSource(rate: 200, open: true)
        weak var weakService: MotionService?
        weak var weakPipeline: MotionPipeline?
        do {
            let service = MotionService(source: source)
            let motion = MotionManager(service: service)
            let activity = MotionActivityManager(service: service)
            motion.startAccelerometerUpdates()
            activity.startActivityUpdates(to: DispatchQueue(label: "test.lifetime")) { _ in }
            #expect(eventually { motion.accelerometerData != nil })
            weakService = service
            weakPipeline = service.pipeline
            #expect(weakPipeline != nil)
        }
        #expect(weakService == nil)   // no cycle through the activity engine
        #expect(eventually { weakPipeline == nil })
    }
}
