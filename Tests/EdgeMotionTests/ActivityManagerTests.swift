#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Testing
import TestSupport
import Synchronization
import MotionCore
import Sensors
@testable import EdgeMotion

/// The simulator, as fast as the pipeline takes samples, ending after `seconds` of simulated
/// time (the simulator itself never ends). Nothing flows before `open()`, so every handler is
/// registered before the first sample.
final class FiniteSimulation: IMUSource, @unchecked Sendable {
    // @unchecked Sendable: `inner` and `count` are `let`s, `gate` an atomic; `produced` is touched
    // only by `start`, `read` and `stop` (one thread at a time, `IMUSource`'s contract).
    let inner: SimulatedIMU
    let count: Int
    private var produced = 0
    private let gate = Atomic<Bool>(false)
    func open() { gate.store(true, ordering: .releasing) }
    var capabilities: SourceCapabilities { inner.capabilities }

    init(_ scenario: String, seconds: Double, rate: Double = 50, sensors: IMUSample.Contents = .all) {
        inner = SimulatedIMU(options: SimulatorOptions(
            scenario: SimulationScenario(named: scenario)!, realTime: false,
            includeGyroscope: sensors.contains(.gyroscope), includeMagnetometer: sensors.contains(.magnetometer)))
        count = Int(seconds * rate)
    }

    func start(requestedRate: Double) throws -> SourceConfiguration { try inner.start(requestedRate: requestedRate) }
    func read(into buffer: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws -> ReadResult {
        guard gate.load(ordering: .acquiring) else {
            usleep(1000)
            return .timeout
        }
        guard produced < count else { return .endOfStream }
        let n = min(buffer.count, count - produced)
        let result = try inner.read(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<n]), timeout: timeout)
        if case .samples(let k) = result { produced += k }
        return result
    }
    func stop() { inner.stop() }

    /// A service on this source at `rate` Hz.
    func service(rate: Double = 50) -> MotionService {
        MotionService(source: self, configuration: MotionService.libraryConfiguration(for: self, rate: rate))
    }
}

private let wide = (from: UTCInstant(secondsSince1970: Date().timeIntervalSince1970 - 3600),
                    to: UTCInstant(secondsSince1970: Date().timeIntervalSince1970 + 7200))

@Suite("MotionActivityManager and PedometerManager", .hangLimit, .ownThread)
struct ActivityManagerTests {
    @Test func withoutAnAccelerometerNothingIsAvailableAndQueriesSaySo() async {
        let service = MotionService(source: GatedSource(sensors: .gyroscope))
        let activity = MotionActivityManager(service: service)
        let pedometer = PedometerManager(service: service)
        #expect(!activity.isActivityAvailable())
        #expect(!pedometer.isStepCountingAvailable() && !pedometer.isDistanceAvailable() && !pedometer.isFloorCountingAvailable())
        await #expect(throws: MotionError.motionActivityNotAvailable) { try await activity.activities(from: UTCInstant(secondsSince1970: 0), to: UTCInstant(secondsSince1970: 1)) }
        await #expect(throws: MotionError.notAvailable) { try await pedometer.pedometerData(from: UTCInstant(secondsSince1970: 0), to: UTCInstant(secondsSince1970: 1)) }
        let full = PedometerManager(source: GatedSource())
        #expect(full.isStepCountingAvailable() && full.isCadenceAvailable() && !full.isFloorCountingAvailable())
    }

    @Test func walkingThenStillIsReportedAsItChangesAndQueriedByRange() async throws {
        let source = FiniteSimulation("walking:60,stationary:60", seconds: 120)
        let service = source.service()
        let manager = MotionActivityManager(service: service)
        let seen = Mutex<[MotionActivity]>([])
        let queue = DispatchQueue(label: "test.activity")
        manager.startActivityUpdates(to: queue) { a in if let a { seen.withLock { $0.append(a) } } }
        source.open()
        #expect(service.pipeline?.waitUntilEnded(timeout: .seconds(60)) == true)
        queue.sync {}
        let live = seen.withLock { $0 }
        let primaries = live.map(\.primary)
        let walking = try #require(primaries.firstIndex(of: .walking))
        let still = try #require(primaries.lastIndex(of: .stationary))
        #expect(walking < still && primaries.last == .stationary)

        // The history holds the same changes, with UTC start dates in order.
        let all = try await manager.activities(from: wide.from, to: wide.to)
        #expect(all.map(\.primary) == primaries)
        #expect(all.map(\.startDate) == live.map(\.startDate))
        #expect(zip(all.dropFirst(), all).allSatisfy { $0.startDate >= $1.startDate })
        #expect(abs(all[0].startDate - Date().timeIntervalSince1970) < 600)   // UTC, not monotonic seconds
        // A range starting just after the walk began excludes it.
        let later = try await manager.activities(from: UTCInstant(secondsSince1970: all[walking].startDate + 0.001), to: wide.to)
        #expect(later.count == all.count - walking - 1)
        #expect(try await manager.activities(from: wide.from, to: wide.from + 1).isEmpty)
        await #expect(throws: MotionError.invalidParameter) { try await manager.activities(from: UTCInstant(secondsSince1970: 10), to: UTCInstant(secondsSince1970: 5)) }
        manager.stopActivityUpdates()
    }

    @Test func stepsAreCountedLiveAndInTheHistory() async throws {
        let source = FiniteSimulation("walking:60,stationary:20", seconds: 80)
        let service = source.service()
        let pedometer = PedometerManager(service: service)
        let updates = Mutex<[PedometerData]>([])
        let events = Mutex<[PedometerEvent]>([])
        let queue = DispatchQueue(label: "test.steps")
        let start = wide.from
        pedometer.startUpdates(from: start, to: queue) { d, e in if let d { updates.withLock { $0.append(d) } } }
        pedometer.startEventUpdates(to: queue) { e, _ in if let e { events.withLock { $0.append(e) } } }
        source.open()
        #expect(service.pipeline?.waitUntilEnded(timeout: .seconds(60)) == true)
        queue.sync {}
        let truth = SimulatedIMU.truth(of: source.inner.scenario, at: 80).steps   // the scripted steps
        let counts = updates.withLock { $0.map(\.numberOfSteps) }
        #expect(!counts.isEmpty && counts == counts.sorted())
        let last = try #require(counts.last)
        #expect(abs(last - truth) <= max(3, truth / 10), "counted \(last), scripted \(truth)")
        #expect(updates.withLock { $0.last?.startDate } == start.secondsSince1970)
        #expect(events.withLock { $0.map(\.kind) } == [.resume, .pause])
        // The walk ended: the last update says so (cadence and pace 0), though no step came after it.
        #expect(updates.withLock { $0.last.map { $0.currentCadence == 0 && $0.currentPace == 0 } } == true)

        let total = try await pedometer.pedometerData(from: wide.from, to: wide.to)
        #expect(total.numberOfSteps == last)
        #expect(abs(total.distance - (updates.withLock { $0.last?.distance } ?? 0)) < 1e-6)
        #expect(total.distance > 0.55 * Double(last) && total.distance < 0.9 * Double(last), "\(total.distance) m for \(last) steps")
        let none = try await pedometer.pedometerData(from: wide.from, to: wide.from + 10)
        #expect(none.numberOfSteps == 0)
    }

    @Test func theSQLiteHistoryKeepsWhatTheEngineSaw() async throws {
        let directory = NSTemporaryDirectory() + "edgemotion-activity-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try ActivityHistoryStore(directory: directory)
        let source = FiniteSimulation("walking:40,stationary:40", seconds: 80)
        let service = source.service()
        service.useActivityHistory(store)
        let manager = MotionActivityManager(service: service)
        manager.startActivityUpdates(to: DispatchQueue(label: "test.sqlite")) { _ in }
        #expect(manager.startError == nil)
        source.open()
        #expect(service.pipeline?.waitUntilEnded(timeout: .seconds(60)) == true)
        let fromManager = try await manager.activities(from: wide.from, to: wide.to)
        #expect(fromManager.map(\.primary).contains(.walking), "\(fromManager.map { ($0.primary, $0.startDate) })")
        // Read back straight from the file, as `edgemotion activity` would.
        let reopened = try ActivityHistoryStore(directory: directory)
        let fromFile = try reopened.activityChanges(from: wide.from.secondsSince1970, to: wide.to.secondsSince1970)
        #expect(fromFile.map(\.primary) == fromManager.map(\.primary))
        let steps = try reopened.pedometerTotals(from: wide.from.secondsSince1970, to: wide.to.secondsSince1970).steps
        #expect(steps > 50)
    }

    /// Core Motion's activity handler has no error argument: a source that cannot start calls it
    /// once with `nil`, `startError` names the device, and the async sequence ends at once.
    @Test func aSourceThatCannotStartSaysSoOnceAndTheSequenceEnds() async {
        let manager = MotionActivityManager(source: FailingSource())
        let calls = Mutex<[MotionActivity?]>([])
        manager.startActivityUpdates(to: DispatchQueue(label: "test.failing")) { a in calls.withLock { $0.append(a) } }
        #expect(eventually { calls.withLock { $0.count } == 1 })
        #expect(calls.withLock { $0.count == 1 && $0[0] == nil })
        #expect(manager.startError?.code == .sourceStartFailed)
        #expect(manager.startError?.detail.contains("/dev/iio:device9") == true, "\(String(describing: manager.startError))")
        var received = 0
        for await _ in manager.activityUpdates() { received += 1 }
        #expect(received == 0)
        #expect(manager.startError?.code == .sourceStartFailed)
    }

    @Test func theActivitySequenceFinishesOnStop() async {
        let source = FiniteSimulation("walking", seconds: 40)
        let manager = MotionActivityManager(service: source.service())
        var received: [MotionActivity] = []
        let updates = manager.activityUpdates()
        source.open()
        for await a in updates {
            received.append(a)
            manager.stopActivityUpdates()
        }
        #expect(received.count == 1)
    }
}
