import MotionCore
import Sensors
import Testing

/// The detectors scored against the simulator's event scenarios, whose truth is written by hand
/// (`EventScenario`): detection rate, false events, timing.
@Suite("Motion events: scored on simulated scenarios")
struct EventScenarioScoringTests {
    /// What a user of these scenarios configures: the door threshold, a washer's 10 Hz
    /// high-pass, fall detection.
    static var configuration: MotionEventConfiguration {
        var c = MotionEventConfiguration()
        c.tiltThresholds = [TiltThreshold(name: "door", onAbove: 60, offBelow: 20, onDwell: 1, offDwell: 1)]
        c.vibration.highPassCutoff = 10
        c.enabled.insert(.fall)
        return c
    }

    static func run(_ name: String, configuration: MotionEventConfiguration = configuration) throws -> (EventScenario, [MotionEvent]) {
        let scenario = try #require(EventScenario(named: name))
        var d = MotionEventDetectors(configuration: configuration, sampleRate: scenario.rate)
        var events: [MotionEvent] = []
        var arm = scenario.armTamperAt
        for s in scenario.samples {
            if let t = arm, s.timestamp >= t { d.armTamper(); arm = nil }
            d.update(time: s.timestamp, specificForce: s.specificForce, rotationRate: s.rotationRate) { events.append($0) }
        }
        return (scenario, events)
    }

    /// Matches each true event to the first unused detection of `type` decided within
    /// `window` s after it; returns (found, unmatched detections, worst latency).
    static func score(_ truth: [EventScenario.Truth], _ events: [MotionEvent], truthType: String, type: MotionEventType,
                      state: Bool? = nil, window: Double) -> (found: Int, total: Int, extra: Int, latency: Double) {
        let candidates = events.filter { $0.type == type && (state == nil || $0.state == state) }
        var used = Set<Int>()
        var latency = 0.0
        let wanted = truth.filter { $0.type == truthType }
        for t in wanted {
            if let i = candidates.indices.first(where: { !used.contains($0) && candidates[$0].time >= t.time - 0.01 && candidates[$0].time <= t.time + window }) {
                used.insert(i)
                latency = max(latency, candidates[i].time - t.time)
            }
        }
        return (used.count, wanted.count, candidates.count - used.count, latency)
    }

    @Test func doorSwingsOpenAndCloseEveryTimeWithinTheDwellPlusLag() throws {
        let (s, e) = try Self.run("door")
        let open = Self.score(s.truth, e, truthType: "tilt_threshold_on", type: .tiltThreshold, state: true, window: 2)
        let closed = Self.score(s.truth, e, truthType: "tilt_threshold_off", type: .tiltThreshold, state: false, window: 2)
        #expect(open.found == open.total && open.total == 10 && open.extra == 0)
        #expect(closed.found == closed.total && closed.extra == 0)
        #expect(open.latency < 1.3 && closed.latency < 1.3, "1 s dwell plus the low-pass lag")
    }

    @Test func washerSpinIsRunningAndTheWashIsNot() throws {
        let (s, e) = try Self.run("washer")
        let start = Self.score(s.truth, e, truthType: "vibration_start", type: .vibrationStart, window: 8)
        let stop = Self.score(s.truth, e, truthType: "vibration_stop", type: .vibrationStop, window: 8)
        #expect(start.found == 3 && start.extra == 0, "\(start)")
        #expect(stop.found == 3 && stop.extra == 0, "\(stop)")
        // STA/LTA (2 s / 30 s): each spin's start and end is one change, within 5 s (windows of 1 s).
        let changed = Self.score(s.truth, e, truthType: "vibration_changed", type: .vibrationChanged, window: 8)
        #expect(changed.found == 6 && changed.total == 6 && changed.extra == 0 && changed.latency < 5, "\(changed)")
    }

    @Test func dropsAreFreeFallsOfTheRightHeightAndOneShockEach() throws {
        let (s, e) = try Self.run("drop")
        let falls = Self.score(s.truth, e, truthType: "free_fall", type: .freeFall, window: 1)
        #expect(falls.found == 5 && falls.extra == 0)
        let heights = e.filter { $0.type == .freeFall }.map(\.dropHeight)
        for (h, truth) in zip(heights, [0.3, 0.6, 0.75, 1.0, 1.5]) { #expect(abs(h - truth) < 0.02, "\(h) m for a \(truth) m drop") }
        let shocks = Self.score(s.truth, e, truthType: "shock", type: .shock, window: 0.2)
        #expect(shocks.found == 5 && shocks.extra == 0)
        #expect(e.filter { $0.type == .tap }.isEmpty, "a landing is not a tap")
    }

    @Test func tapsAreFoundAndPairsAreDoubleTaps() throws {
        let (s, e) = try Self.run("tap")
        let taps = Self.score(s.truth, e, truthType: "tap", type: .tap, window: 0.3)
        let doubles = Self.score(s.truth, e, truthType: "double_tap", type: .doubleTap, window: 0.3)
        #expect(Double(taps.found) >= 0.8 * Double(taps.total) && taps.extra == 0, "\(taps)")
        #expect(doubles.found == doubles.total && doubles.extra == 0, "\(doubles)")
    }

    @Test func fallsAreFoundAndWalkingIsNotAFall() throws {
        let (s, e) = try Self.run("fall")
        let falls = Self.score(s.truth, e, truthType: "fall", type: .fall, window: 10)
        #expect(falls.found == 6 && falls.extra == 0, "\(falls)")
    }

    /// Each carry is one `motion` (decided within 0.2 s: 0.1 s of moving samples), the three of 5 s
    /// or longer one `significant_motion` each (at 5 s, within 0.2 s), and each set-down one
    /// `stationary` (2 s after the last moving sample, within 0.2 s); nothing else.
    @Test func carriesAreMotionTheLongOnesSignificantAndEachSetDownStationary() throws {
        let (s, e) = try Self.run("carry")
        let motion = Self.score(s.truth, e, truthType: "motion", type: .motion, window: 0.5)
        let significant = Self.score(s.truth, e, truthType: "significant_motion", type: .significantMotion, window: 0.5)
        let stationary = Self.score(s.truth, e, truthType: "stationary", type: .stationary, window: 0.5)
        #expect(motion.found == 6 && motion.total == 6 && motion.extra == 0, "\(motion)")
        #expect(significant.found == 3 && significant.total == 3 && significant.extra == 0, "\(significant)")
        #expect(stationary.found == 6 && stationary.extra == 0, "\(stationary)")
        #expect(motion.latency < 0.2 && significant.latency < 0.2 && stationary.latency < 0.2,
                "latencies \(motion.latency) / \(significant.latency) / \(stationary.latency) s")
        #expect(e.allSatisfy { [.motion, .significantMotion, .stationary].contains($0.type) }, "\(Set(e.map(\.type)))")
    }

    /// The slow lid is tampering by tilt alone (no `motion` while it creeps), at 5°; the carry after
    /// the lid is shut again is tampering by motion: two events, each within 1 s of its truth.
    @Test func aPriedLidAndACarryAreTamperingOnceEach() throws {
        let (s, e) = try Self.run("tamper")
        let tamper = Self.score(s.truth, e, truthType: "tamper", type: .tamper, window: 1)
        #expect(tamper.found == 2 && tamper.total == 2 && tamper.extra == 0 && tamper.latency < 1, "\(tamper)")
        let motions = e.filter { $0.type == .motion }.map(\.time)
        #expect(motions.count == 1 && motions.allSatisfy { $0 >= 200 }, "motion only when carried: \(motions)")
    }

    /// Every face change is one `orientation` event, the right face with the right previous one,
    /// decided 0.5 s (the dwell) plus the 2 Hz low-pass lag after gravity entered the face's cone.
    @Test func eachQuarterTurnIsOneOrientationWithItsFace() throws {
        var c = Self.configuration
        c.enabled.insert(.orientation)
        let (s, e) = try Self.run("turn", configuration: c)
        let turns = Self.score(s.truth, e, truthType: "orientation", type: .orientation, window: 1.5)
        #expect(turns.found == 9 && turns.total == 9 && turns.extra == 0, "\(turns)")
        #expect(turns.latency >= 0.5 && turns.latency < 0.8, "latency \(turns.latency) s")
        let faces = e.filter { $0.type == .orientation }.map(\.face)
        #expect(faces == [.faceUp, .portrait, .faceDown, .portraitUpsideDown, .faceUp,
                          .landscapeLeft, .faceUp, .landscapeRight, .faceUp], "\(faces)")
        let previous = e.filter { $0.type == .orientation }.map(\.previousFace)
        #expect(previous.first == .unknown && Array(previous.dropFirst()) == Array(faces.dropLast()), "\(previous)")
    }

    @Test func anHourAtRestHasNoEvents() throws {
        let (_, e) = try Self.run("quiet")
        #expect(e.isEmpty, "\(e.count) events in an hour at rest")
    }
}
