import MotionCore
import Sensors
import Testing
import TestSupport

/// The activity detector and the pedometer on the simulator's physically modelled scenarios
/// (`Sources/Sensors/Simulator`), with its sensor noise and gyroscope bias.
@Suite("Activity on simulator scenarios", .ownThread)
struct ActivitySimulatorTests {
    /// Feeds `duration` s of `scenario` at `rate` Hz to `body(seconds since start, sample)`.
    static func simulate(_ scenario: SimulationScenario, duration: Double, rate: Double = 100, gyroscope: Bool = true,
                         _ body: (Double, IMUSample) -> Void) throws {
        let imu = SimulatedIMU(options: SimulatorOptions(scenario: scenario, realTime: false, includeGyroscope: gyroscope,
                                                         includeMagnetometer: false))
        _ = try imu.start(requestedRate: rate)
        let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 512)
        defer { buffer.deallocate() }
        let total = Int(duration * rate)
        var done = 0
        while done < total {
            guard case .samples(let n) = try imu.read(into: buffer, timeout: .seconds(1)) else { break }
            for k in 0..<Swift.min(n, total - done) {
                body(Double(buffer[k].timestampNanos - imu.startNanos) * 1e-9, buffer[k])
            }
            done += n
        }
        imu.stop()
    }

    /// Time-weighted share of each primary activity over [from, end] s.
    static func shares(_ events: [(Double, MotionActivity)], from: Double, end: Double) -> [ActivityClass: Double] {
        var out: [ActivityClass: Double] = [:]
        for (i, (t, a)) in events.enumerated() {
            let next = i + 1 < events.count ? events[i + 1].0 : end
            let span = Swift.min(next, end) - Swift.max(t, from)
            if span > 0 { out[a.primary, default: 0] += span }
        }
        let total = out.values.reduce(0, +)
        return out.mapValues { $0 / total }
    }

    @Test(arguments: [("stationary", ActivityClass.stationary), ("walking", .walking), ("running", .running),
                      ("cycling", .cycling), ("automotive", .automotive)])
    func detectsEachSimulatorScenario(name: String, expected: ActivityClass) throws {
        let scenario = try #require(SimulationScenario(named: name))
        let detector = ActivityDetector()
        var events: [(Double, MotionActivity)] = []
        let duration = 240.0
        try Self.simulate(scenario, duration: duration) { t, s in
            if let a = detector.update(s) { events.append((t, a)) }
        }
        // A car starts stopped and needs 20 decisions of vehicle evidence: judge after 60 s.
        let share = Self.shares(events, from: 60, end: duration)[expected] ?? 0
        #expect(share >= 0.95, "\(name): \(events.map { ("\(Int($0.0)) s", $0.1.flagNames) })")
        #expect(events.filter { $0.0 > 60 }.allSatisfy { $0.1.primary == expected }, "\(name): no other class after 60 s")
    }

    @Test func walkRunStationaryEachReportedOnceWithinTenSeconds() throws {
        let scenario = try #require(SimulationScenario(named: "walking:60,running:60,stationary:60"))
        let detector = ActivityDetector()
        var events: [(Double, MotionActivity)] = []
        try Self.simulate(scenario, duration: 180, gyroscope: false) { t, s in
            if let a = detector.update(s) { events.append((t, a)) }
        }
        #expect(events.map(\.1.primary) == [.walking, .running, .stationary], "\(events.map { ($0.0, $0.1.flagNames) })")
        guard events.count == 3 else { return }
        #expect(events[1].0 - 60 <= 10, "walk → run after \(events[1].0 - 60) s")
        #expect(events[2].0 - 120 <= 10, "run → stationary after \(events[2].0 - 120) s")
    }

    @Test(arguments: [1.6, 1.9, 2.2])
    func pedometerCountsSimulatedWalkingWithinTwoPercent(cadence: Double) throws {
        let scenario = SimulationScenario.walking(cadence: cadence)
        var pedometer = Pedometer()
        let duration = 90.0
        try Self.simulate(scenario, duration: duration, gyroscope: false) { t, s in
            _ = pedometer.update(time: t, specificForce: s.specificForce)
        }
        let truth = SimulatedIMU.truth(of: scenario, at: duration).steps
        let counted = pedometer.data.numberOfSteps
        #expect(abs(Double(counted - truth)) <= 0.02 * Double(truth), "cadence \(cadence): counted \(counted), truth \(truth)")
    }

    @Test func pedometerCountsSimulatedRunningWithinTwoPercent() throws {
        var pedometer = Pedometer()
        try Self.simulate(.running, duration: 60, gyroscope: false) { t, s in
            _ = pedometer.update(time: t, specificForce: s.specificForce)
        }
        let truth = SimulatedIMU.truth(of: .running, at: 60).steps
        #expect(abs(Double(pedometer.data.numberOfSteps - truth)) <= 0.02 * Double(truth),
                "counted \(pedometer.data.numberOfSteps), truth \(truth)")
    }
}
