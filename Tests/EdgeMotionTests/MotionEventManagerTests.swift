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

/// The library's Core Motion–style manager for motion events (docs/events.md, "library"): push
/// handler, async sequence and pull, "set level" with its zero handler, and a persisted zero pose
/// handed back at init — each through a real pipeline.
@Suite("MotionEventManager", .hangLimit, .serialized, .ownThread)
struct MotionEventManagerTests {
    /// The hand-written drop (`HandWrittenRecording.drop`): rest, 0.35 s at 0 g from t = 2.000 s,
    /// a 3-row landing at 4 g, rest; 200 Hz. In a directory of its own (removed with it).
    static func writeDrop() throws -> String {
        let dir = NSTemporaryDirectory() + "edgemotion-drop-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return try HandWrittenRecording.drop(in: dir)
    }

    static func service(replaying path: String) throws -> MotionService {
        let source = try ReplaySource(path: path, speed: .asFastAsPossible)
        return MotionService(source: source, configuration: MotionService.libraryConfiguration(for: source))
    }

    /// Falling from t = 2.000 s to the landing at 2.350 s: 0.35 s (± one 5 ms row), so
    /// h = g·t²/2 = 9.80665 × 0.35² / 2 = 0.6007 m (± g·t·0.005 = 0.017 m).
    static func expectTheDrop(_ events: [MotionEvent], sourceLocation: SourceLocation = #_sourceLocation) {
        let falls = events.filter { $0.type == .freeFall }
        #expect(falls.count == 1, "\(events.map(\.type))", sourceLocation: sourceLocation)
        guard let fall = falls.first else { return }
        #expect(abs(fall.duration - 0.35) <= 0.0051, "duration \(fall.duration)", sourceLocation: sourceLocation)
        #expect(abs(fall.dropHeight - 0.6007) <= 0.018, "height \(fall.dropHeight)", sourceLocation: sourceLocation)
        #expect(abs(fall.time - fall.onset - 0.35) <= 0.06, "reported at the landing", sourceLocation: sourceLocation)
        let shocks = events.filter { $0.type == .shock }
        #expect(shocks.count == 1 && abs((shocks.first?.peak ?? 0) - 4) < 0.01, "one 4 g landing", sourceLocation: sourceLocation)
    }

    @Test func thePushHandlerGetsTheDropOnItsQueue() throws {
        let path = try Self.writeDrop()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let manager = MotionEventManager(service: try Self.service(replaying: path))
        #expect(manager.isAvailable)
        let key = DispatchSpecificKey<Int>()
        let queue = DispatchQueue(label: "test.events.push")
        queue.setSpecific(key: key, value: 7)
        let received = Mutex<(events: [MotionEvent], offQueue: Int)>(([], 0))
        try manager.startEventUpdates(to: queue) { e in
            let onQueue = DispatchQueue.getSpecific(key: key) == 7
            received.withLock { $0.events.append(e); if !onQueue { $0.offQueue += 1 } }
        }
        #expect(eventually { received.withLock { $0.events.contains { $0.type == .shock } } })
        usleep(200_000)
        manager.stopEventUpdates()
        let got = received.withLock { $0 }
        Self.expectTheDrop(got.events)
        #expect(got.offQueue == 0)
    }

    @Test func theAsyncSequenceYieldsTheDropAndFinishesOnStop() async throws {
        let path = try Self.writeDrop()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let manager = MotionEventManager(service: try Self.service(replaying: path))
        var events: [MotionEvent] = []
        for await e in try manager.eventUpdates() {
            events.append(e)
            if e.type == .shock { manager.stopEventUpdates() }
            if events.count > 1000 { break }   // would mean the stream never finished
        }
        Self.expectTheDrop(events)
    }

    /// The simulator's resting board (roll 10°, pitch −5°) is acos(cos 10° · cos 5°) = 11.17° from
    /// level. "Set level" makes that pose the zero (tilt → 0) and hands the zero handler its
    /// up-vector; a manager created with that up-vector as `zero` (a persisted zero pose) starts
    /// at tilt ≈ 0; `state` (pull) is nil before the first window.
    @Test func setLevelZeroesTiltThroughItsHandlerAndAPersistedZeroIsKept() throws {
        let first = MotionManager.simulator(scenario: .stationary, rate: 100, magnetometer: false)
        let manager = MotionEventManager(service: first.service)
        #expect(manager.state == nil)
        let zero = Mutex<Vector3?>(nil)
        try manager.startEventUpdates(to: DispatchQueue(label: "test.events.level"), withHandler: { _ in },
                                      zeroHandler: { z in zero.withLock { $0 = z } })
        #expect(eventually { manager.state != nil })
        let before = try #require(manager.state)
        #expect(abs(before.tilt - 11.17) < 0.5, "tilt \(before.tilt)")
        manager.setLevel()
        #expect(eventually { zero.withLock { $0 } != nil })
        let up = try #require(zero.withLock { $0 })
        #expect(eventually { (manager.state?.tilt ?? 99) < 1 && manager.state?.zero == up }, "tilt \(manager.state?.tilt ?? -1)")
        manager.stopEventUpdates()
        // up is the resting up-vector in the sensor frame: its angle from z is the 11.17° above.
        #expect(abs(acos(up.z / up.norm) * 180 / .pi - 11.17) < 0.5, "up \(up)")

        let second = MotionManager.simulator(scenario: .stationary, rate: 100, magnetometer: false, seed: 2)
        let restored = MotionEventManager(service: second.service, zero: up)
        try restored.startEventUpdates(to: DispatchQueue(label: "test.events.restored"), withHandler: { _ in })
        #expect(eventually { restored.state != nil })
        let state = try #require(restored.state)
        #expect(state.tilt < 1 && state.zero == up, "tilt \(state.tilt), zero \(state.zero)")
        restored.stopEventUpdates()
    }

    /// The spectrum handler, on a hum written by hand: 25 Hz, 2 m/s² amplitude on x (RMS 2/√2 =
    /// 1.414 m/s²) over 1 g on z, 200 Hz, 6 s; a spectrum each second, of 256 samples (1.28 s, 32
    /// whole cycles). Each one's strongest line is 25 Hz (within one 0.78 Hz bin) and its total RMS
    /// 1.414 (gravity, the block's mean, removed).
    @Test func theSpectrumHandlerGetsEachSpectrumOfAHum() throws {
        let dir = NSTemporaryDirectory() + "edgemotion-hum-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var csv = "t_s,ax,ay,az\n"
        for i in 0..<1200 {
            let t = Double(i) * 0.005
            csv += "\(String(format: "%.3f", t)),\(2 * sin(2 * .pi * 25 * t)),0,9.80665\n"
        }
        try csv.write(toFile: dir + "/hum.csv", atomically: true, encoding: .utf8)
        var c = MotionEventConfiguration()
        c.vibration.spectrum.enabled = true
        c.vibration.spectrum.interval = 1
        let manager = MotionEventManager(service: try Self.service(replaying: dir + "/hum.csv"), configuration: c)
        let spectra = Mutex<[VibrationSpectrum]>([])
        try manager.startEventUpdates(to: DispatchQueue(label: "test.events.spectrum"), withHandler: { _ in },
                                      spectrumHandler: { s in spectra.withLock { $0.append(s) } })
        #expect(eventually { spectra.withLock { $0.count } >= 3 }, "\(spectra.withLock { $0.count }) spectra")
        manager.stopEventUpdates()
        for s in spectra.withLock({ $0 }) {
            #expect(abs(s.peakFrequency - 25) <= s.resolution, "peak \(s.peakFrequency) Hz")
            #expect(abs(s.totalRMS - 1.414) < 0.05, "total RMS \(s.totalRMS)")
        }
    }

    /// Tamper from the library: the board lies still for 3 s, then is carried off (walking).
    /// Armed during the stillness, the walk is one `tamper` event; not armed, the same walk is none.
    /// While still, the pull state counts the stationary time up (it is wall time of a real-time
    /// source, so only bounds are checked: at least 0.5 s, at most the 3 s of stillness).
    @Test(arguments: [true, false])
    func armingTamperMakesBeingCarriedOffAnEventAndNotArmingDoesNot(armed: Bool) throws {
        let scenario = try #require(SimulationScenario(named: "stationary:3,walking"))
        let manager = MotionEventManager(service: MotionManager.simulator(scenario: scenario, rate: 100, magnetometer: false).service)
        let events = Mutex<[MotionEvent]>([])
        try manager.startEventUpdates(to: DispatchQueue(label: "test.events.tamper")) { e in events.withLock { $0.append(e) } }
        #expect(eventually { (manager.state?.stationaryFor ?? 0) >= 0.5 }, "stationary for \(manager.state?.stationaryFor ?? -1) s")
        let still = try #require(manager.state)
        #expect(!still.moving && still.stationaryFor <= 3.2, "\(still.stationaryFor) s")
        if armed { manager.armTamper() }
        #expect(eventually { events.withLock { $0.contains { $0.type == .motion } } }, "the walk began: \(events.withLock { $0.map(\.type) })")
        usleep(500_000)
        manager.stopEventUpdates()
        let tampers = events.withLock { $0.filter { $0.type == .tamper } }
        #expect(tampers.count == (armed ? 1 : 0), "armed \(armed): \(tampers.count) tamper events")
    }
}
