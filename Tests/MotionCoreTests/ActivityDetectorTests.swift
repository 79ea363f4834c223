import Testing
@testable import MotionCore

@Suite("ActivityDetector")
struct ActivityDetectorTests {
    /// Runs `segments` through a fresh detector; returns every change event.
    static func run(_ segments: [(SyntheticMotion, Double)], rate: Double = 50, gyro: Bool = false,
                    detector: ActivityDetector = ActivityDetector()) -> [MotionActivity] {
        var signal = SyntheticRecording(rate: rate)
        var events: [MotionActivity] = []
        for (motion, duration) in segments {
            signal.generate(motion, duration: duration) { t, f, w in
                if let e = detector.update(time: t, specificForce: f, rotationRate: gyro ? w : nil) { events.append(e) }
            }
        }
        return events
    }

    /// The same, with a gyroscope, through a detector whose rule `rule` is set to 0 (off).
    static func runWithRuleOff(_ rule: WritableKeyPath<ActivityConfiguration, Double>,
                               _ segments: [(SyntheticMotion, Double)]) -> [MotionActivity] {
        var off = ActivityConfiguration()
        off[keyPath: rule] = 0
        return run(segments, gyro: true, detector: ActivityDetector(configuration: off))
    }

    @Test(arguments: [
        (SyntheticMotion.stationary(noise: 0.02), ActivityClass.stationary),
        (.gait(cadence: 1.8, amplitude: 3.5), .walking),
        (.gait(cadence: 2.8, amplitude: 12), .running),
        (.vehicle(vibration: 0.9), .automotive),
    ])
    func detectsEachClassFromItsSyntheticSignal(motion: SyntheticMotion, expected: ActivityClass) {
        let events = Self.run([(motion, 120)])
        #expect(events.last?.primary == expected, "events: \(events.map(\.flagNames))")
        // A vehicle needs 20 decisions of evidence; until then the carrier is not walking: stationary.
        let settled = expected == .automotive && events.first?.primary == .stationary ? Array(events.dropFirst()) : events
        #expect(settled.count == 1, "one settled activity, no flapping: \(events.map(\.flagNames))")
    }

    @Test func detectsCyclingFromPeriodicThighRotationWithGyroscope() {
        let events = Self.run([(.pedalling(cadence: 1.2), 60)], gyro: true)
        #expect(events.last?.cycling == true, "events: \(events.map(\.flagNames))")
    }

    @Test func pedallingWithoutGyroscopeIsNotCalledCycling() {
        let events = Self.run([(.pedalling(cadence: 1.2), 60)], gyro: false)
        #expect(!events.contains { $0.cycling })
    }

    @Test func walkRunStationaryTransitionsAreEachReportedOnceWithinTenSeconds() {
        let detector = ActivityDetector()
        var signal = SyntheticRecording(rate: 50)
        var events: [(Double, MotionActivity)] = []
        let plan: [(SyntheticMotion, Double)] = [(.gait(cadence: 1.8, amplitude: 3.5), 60),
                                                  (.gait(cadence: 2.8, amplitude: 12), 60),
                                                  (.stationary(noise: 0.02), 60)]
        for (motion, duration) in plan {
            signal.generate(motion, duration: duration) { t, f, _ in
                if let e = detector.update(time: t, specificForce: f, rotationRate: nil) { events.append((t, e)) }
            }
        }
        #expect(events.map(\.1.primary) == [.walking, .running, .stationary], "\(events.map { ($0.0, $0.1.flagNames) })")
        guard events.count == 3 else { return }
        let runLatency = events[1].0 - 60, stillLatency = events[2].0 - 120
        #expect(runLatency > 0 && runLatency <= 10, "walk→run reported after \(runLatency) s")
        #expect(stillLatency > 0 && stillLatency <= 10, "run→stationary reported after \(stillLatency) s")
        // startDate is backdated before the report, and the previous duration is the time in the old state.
        #expect(events[1].1.startDate <= events[1].0)
        #expect(abs(events[2].1.previousDuration - 60) < 10, "running lasted ~60 s, reported \(events[2].1.previousDuration)")
    }

    @Test func aTinyPeriodicVibrationIsNotWalking() {
        let events = Self.run([(.gait(cadence: 1.8, amplitude: 0.05), 60)])
        #expect(events.map(\.primary) == [.stationary], "\(events.map(\.flagNames))")
    }

    @Test func noisyStationaryForTenMinutesNeverFlaps() {
        let events = Self.run([(.stationary(noise: 0.05), 600)], rate: 100)
        #expect(events.count == 1, "\(events.map { ($0.startDate, $0.flagNames) })")
        #expect(events.first?.stationary == true)
    }

    @Test(arguments: [10.0, 26.0, 100.0, 1000.0])
    func detectsWalkingAtAnySourceRate(rate: Double) {
        let events = Self.run([(.gait(cadence: 1.8, amplitude: 3.5), 40)], rate: rate)
        #expect(events.last?.walking == true, "rate \(rate) Hz: \(events.map(\.flagNames))")
    }

    /// A still device with every 5th reading a dropout of exactly (0, 0, 0) — what a failed bus read
    /// or a recorder's zero fill gives (dsa p1's stair recordings have a 1 s zero fill every 5 s). A
    /// device at rest reads gravity, 9.81 m/s², so it is stationary; read as data, the zeros would
    /// make |f| jump by 9.81 m/s² (std ≈ 9.81·√(0.2·0.8) ≈ 3.9 m/s², more than a walk) and the
    /// window mean |f| fall to ≈ 7.8 m/s². 60 s at 50 Hz = 3000 samples, 600 of them dropouts.
    @Test func zeroReadingDropoutsAreSkippedNotClassified() {
        let detector = ActivityDetector()
        var signal = SyntheticRecording(rate: 50)
        var events: [MotionActivity] = []
        var i = 0
        signal.generate(.stationary(noise: 0.02), duration: 60) { t, f, _ in
            i += 1
            let reading = i % 5 == 0 ? Vector3.zero : f
            if let e = detector.update(time: t, specificForce: reading, rotationRate: nil) { events.append(e) }
        }
        #expect(events.map(\.primary) == [.stationary], "\(events.map(\.flagNames))")
        #expect(detector.zeroReadingsSkipped == 600)
        #expect(detector.inputProblem == nil)
    }

    @Test(arguments: [2.0, 5.0, 7.0])
    func aSourceSlowerThanTenHertzIsReportedAndNotClassified(rate: Double) {
        let detector = ActivityDetector()
        let events = Self.run([(.gait(cadence: 1.8, amplitude: 3.5), 60)], rate: rate, detector: detector)
        #expect(events.isEmpty, "\(rate) Hz: no activity from interpolated samples: \(events.map(\.flagNames))")
        #expect(detector.currentActivity == nil)
        guard case .rateTooLow(let measured, let required)? = detector.inputProblem else {
            Issue.record("\(rate) Hz: expected rateTooLow, got \(String(describing: detector.inputProblem))")
            return
        }
        #expect(abs(measured - rate) <= 0.15 * rate, "measured \(measured) Hz for a \(rate) Hz source")
        #expect(required >= 8 && required <= 10)
        #expect(detector.inputProblem?.message.contains("Hz") == true)
    }

    /// User acceleration (gravity already removed) and acceleration in g are not raw specific force
    /// in m/s²: without the guard the first would look like a quiet table, the second like nothing at all.
    @Test(arguments: ["gravity removed", "in g"])
    func inputWithoutGravityInMetresPerSecondSquaredIsReportedAndNotClassified(kind: String) {
        let detector = ActivityDetector()
        var signal = SyntheticRecording(rate: 50)
        let up = signal.up
        var events: [MotionActivity] = []
        signal.generate(.gait(cadence: 1.8, amplitude: 3.5), duration: 40) { t, f, _ in
            let input = kind == "in g" ? f * (1 / standardGravity) : f - up * standardGravity
            if let e = detector.update(time: t, specificForce: input, rotationRate: nil) { events.append(e) }
        }
        #expect(events.isEmpty, "\(kind): \(events.map(\.flagNames))")
        guard case .noGravity(let mean)? = detector.inputProblem else {
            Issue.record("\(kind): expected noGravity, got \(String(describing: detector.inputProblem))")
            return
        }
        #expect(mean < 5, "mean |f| \(mean) m/s²")
        // Raw specific force again: the guard clears and the walk is found.
        signal.generate(.gait(cadence: 1.8, amplitude: 3.5), duration: 40) { t, f, _ in
            if let e = detector.update(time: t, specificForce: f, rotationRate: nil) { events.append(e) }
        }
        #expect(detector.inputProblem == nil)
        #expect(events.last?.walking == true, "\(events.map(\.flagNames))")
    }

    @Test func aStopInTheCarKeepsAutomotiveAndAddsStationary() {
        let events = Self.run([(.vehicle(vibration: 0.9), 120), (.stationary(noise: 0.01), 60), (.vehicle(vibration: 0.9), 60)])
        // Stationary until the vehicle has 20 decisions of evidence, then automotive throughout.
        let trip = Array(events.drop { !$0.automotive })
        #expect(events.count - trip.count <= 1 && events.first.map { $0.automotive || $0.primary == .stationary } == true)
        #expect(trip.contains { $0.automotive && $0.stationary }, "\(events.map(\.flagNames))")
        #expect(trip.allSatisfy { $0.automotive }, "never leaves the vehicle at a short stop: \(events.map(\.flagNames))")
        #expect(events.last.map { $0.automotive && !$0.stationary } == true)
    }

    /// Truth from vehicle dynamics, not from the detector: a car's heading cannot swing ±18° every two
    /// seconds (1 rad/s peak at 0.5 Hz, rms 0.71 about the mean) for two minutes, as a rowing or
    /// climbing body turns the device; a weave of ±14° every 5 s (0.3 rad/s peak at 0.2 Hz, rms 0.21)
    /// and a steady 0.5 rad/s turn are driving. Same vibration in every run.
    @Test func aDeviceSwingingFasterThanACabinTurnsIsNeverAutomotive() {
        let swinging = SyntheticMotion.vehicleTurning(vibration: 0.9, yawRate: 0, swing: 1.0, swingFrequency: 0.5)
        let events = Self.run([(swinging, 120)], gyro: true)
        #expect(!events.contains { $0.automotive }, "\(events.map(\.flagNames))")
        let weave = Self.run([(.vehicleTurning(vibration: 0.9, yawRate: 0, swing: 0.3, swingFrequency: 0.2), 120)], gyro: true)
        #expect(weave.last?.automotive == true, "a weave is still a car: \(weave.map(\.flagNames))")
        let roundabouts = Self.run([(.vehicleTurning(vibration: 0.9, yawRate: 0.5), 120)], gyro: true)
        #expect(roundabouts.last?.automotive == true, "a steady turn is still a car: \(roundabouts.map(\.flagNames))")
        // Without a gyroscope nothing says it turns: the vibration alone decides, as before.
        let unseen = Self.run([(swinging, 120)], gyro: false)
        #expect(unseen.last?.automotive == true, "\(unseen.map(\.flagNames))")
        let ruleOff = Self.runWithRuleOff(\.vehicleMaximumGyroRMS, [(swinging, 120)])
        #expect(ruleOff.last?.automotive == true, "0 turns the rule off: \(ruleOff.map(\.flagNames))")
    }

    /// Truth from vehicle dynamics: a cabin turns about the vertical and barely pitches or rolls, a
    /// rowing or pedalling body rocks about a horizontal axis. The same vibration with the device
    /// rocking ±0.3 rad/s at 0.4 Hz (±7°, rms 0.21: below the turning rule's 0.6) never starts a trip;
    /// a cabin's weave of the same size about gravity does (`aDeviceSwingingFasterThanACabinTurnsIsNeverAutomotive`);
    /// with the rule off, or without a gyroscope, the vibration alone decides; inside a trip the
    /// rocking does not end it.
    @Test func aDeviceRockingAboutAHorizontalAxisNeverStartsATrip() {
        let rocking = SyntheticMotion.vehiclePitching(vibration: 0.9, rate: 0.3, frequency: 0.4)
        let events = Self.run([(rocking, 120)], gyro: true)
        #expect(!events.contains { $0.automotive }, "\(events.map(\.flagNames))")
        let unseen = Self.run([(rocking, 120)], gyro: false)
        #expect(unseen.last?.automotive == true, "\(unseen.map(\.flagNames))")
        let ruleOff = Self.runWithRuleOff(\.vehicleMinimumYawShare, [(rocking, 120)])
        #expect(ruleOff.last?.automotive == true, "0 turns the rule off: \(ruleOff.map(\.flagNames))")
        let inTrip = Self.run([(.vehicle(vibration: 0.9), 60), (rocking, 60)], gyro: true)
        let trip = Array(inTrip.drop { !$0.automotive })
        #expect(!trip.isEmpty && trip.allSatisfy { $0.automotive }, "\(inTrip.map(\.flagNames))")
    }

    /// Truth from gait physiology: a stride is two steps, and the body turns once per stride
    /// wherever the device sits; people run at ≥ ~150 steps/min (stride ≥ 1.15 Hz) and walk
    /// below ~125. Steps landing harder than the running case above (bounce 16 m/s²) at
    /// 1.8 steps/s, with the rotation periodic at the 0.9 Hz stride, are a hard walk — a knee unit
    /// on a brisk walk. Without a gyroscope (|f| then gives the period, and it repeats at the
    /// 1.8/s step, as fast as a slow run's stride), or with the rule off, the bounce alone decides
    /// and says running (why the rule exists); a real run's 1.4 Hz stride stays running.
    @Test func aRotationAtAWalkingStrideRateIsNeverRunning() {
        let hardWalk = SyntheticMotion.gait(cadence: 1.8, amplitude: 16)
        let events = Self.run([(hardWalk, 120)], gyro: true)
        #expect(events.last?.primary == .walking && !events.contains { $0.running }, "\(events.map(\.flagNames))")
        let unseen = Self.run([(hardWalk, 120)], gyro: false)
        #expect(unseen.last?.primary == .running, "\(unseen.map(\.flagNames))")
        let ruleOff = Self.runWithRuleOff(\.runningMinimumStrideRate, [(hardWalk, 120)])
        #expect(ruleOff.last?.primary == .running, "0 turns the rule off: \(ruleOff.map(\.flagNames))")
        let run = Self.run([(.gait(cadence: 2.8, amplitude: 12), 120)], gyro: true)
        #expect(run.last?.primary == .running, "\(run.map(\.flagNames))")
    }

    /// Truth from vehicle dynamics: a road or rail vehicle accelerates, brakes, corners and sways in
    /// the horizontal plane. A lift (0.8 m/s² rides, rail vibration along gravity) and a device on
    /// a machine shaking mostly vertically (horizontal rms 0.71 of vertical) is no vehicle setting
    /// off. With the rule off the same signal, at the car tests' vibration, is taken for a car
    /// (which is why the rule exists: the vibration spectrum alone looks like a road's).
    @Test func motionMostlyAlongGravityNeverStartsATrip() {
        let vibration = 0.9
        let events = Self.run([(.lift(vibration: vibration), 180)], gyro: true)
        #expect(!events.contains { $0.automotive }, "\(events.map(\.flagNames))")
        let ruleOff = Self.runWithRuleOff(\.vehicleMinimumHorizontalRatio, [(.lift(vibration: vibration), 180)])
        #expect(ruleOff.contains { $0.automotive }, "0 turns the rule off: \(ruleOff.map(\.flagNames))")
    }

    /// Inside a trip the horizontal-motion rule does not apply: 20 s of rough road that shakes the
    /// mount mostly vertically (the lift's signal) between straight driving never ends the trip nor
    /// reads as a stop.
    @Test func aRoughStretchInsideATripKeepsItAutomotive() {
        let events = Self.run([(.vehicle(vibration: 0.9), 60), (.lift(vibration: 0.9), 20), (.vehicle(vibration: 0.9), 30)], gyro: true)
        let trip = Array(events.drop { !$0.automotive })
        #expect(!trip.isEmpty, "\(events.map(\.flagNames))")
        #expect(trip.allSatisfy { $0.automotive && !$0.stationary }, "\(events.map(\.flagNames))")
    }

    @Test func excludingAClassGivesItsShareToTheOthersInProportion() {
        var p = ClassProbabilities()
        p.stationary = 0.1; p.walking = 0.2; p.automotive = 0.5; p.unknown = 0.2
        p.exclude(.automotive)
        // Given "not automotive": 0.1, 0.2, 0.2 out of the remaining 0.5.
        #expect(abs(p.stationary - 0.2) < 1e-12 && abs(p.walking - 0.4) < 1e-12 && abs(p.unknown - 0.4) < 1e-12)
        #expect(p.automotive == 0 && p.running == 0 && p.cycling == 0)
        var only = ClassProbabilities()
        only.automotive = 1
        only.exclude(.automotive)
        #expect(abs(only.stationary - 0.2) < 1e-12 && abs(only.unknown - 0.2) < 1e-12 && only.automotive == 0)
    }

    /// Inside a trip the rotation rule does not apply: a U-turn (π rad in 4 s, 0.79 rad/s), a
    /// roundabout (2π in 10 s, 0.63 rad/s) and 8 s of the phone rattling in its mount (the swing
    /// above) between straight driving never end the trip.
    @Test func aUTurnARoundaboutAndARattleInsideATripKeepItAutomotive() {
        let events = Self.run([(.vehicle(vibration: 0.9), 60), (.vehicleTurning(vibration: 0.9, yawRate: .pi / 4), 4),
                               (.vehicle(vibration: 0.9), 30), (.vehicleTurning(vibration: 0.9, yawRate: 2 * .pi / 10), 10),
                               (.vehicle(vibration: 0.9), 30),
                               (.vehicleTurning(vibration: 0.9, yawRate: 0, swing: 1.0, swingFrequency: 0.5), 8),
                               (.vehicle(vibration: 0.9), 30)], gyro: true)
        let trip = Array(events.drop { !$0.automotive })
        #expect(!trip.isEmpty, "\(events.map(\.flagNames))")
        #expect(trip.allSatisfy { $0.automotive && !$0.stationary }, "\(events.map(\.flagNames))")
    }

    @Test func acceptsFusedDeviceMotion() {
        let detector = ActivityDetector()
        var signal = SyntheticRecording(rate: 50)
        var last: MotionActivity?
        let up = signal.up
        signal.generate(.gait(cadence: 1.8, amplitude: 3.5), duration: 30) { t, f, w in
            let total = Acceleration(specificForce: f)
            let gravity = Acceleration(specificForce: up * standardGravity)
            let motion = DeviceMotion(timestamp: t, attitude: Attitude(quaternion: .identity), referenceFrame: .xArbitraryZVertical,
                                      rotationRate: RotationRate(w ?? .zero), gravity: gravity,
                                      userAcceleration: Acceleration(x: total.x - gravity.x, y: total.y - gravity.y, z: total.z - gravity.z))
            if let e = detector.update(motion) { last = e }
        }
        #expect(last?.walking == true)
    }

    @Test func confidenceFollowsTheVoteMargin() {
        func confidence(_ best: Double, _ second: Double) -> MotionActivityConfidence? {
            var c = ActivityConfiguration()
            c.voteDecisions = 1
            c.enterDecisions = 1
            c.switchProbability = 0
            let machine = ActivityStateMachine(configuration: c)
            var p = ClassProbabilities()
            p.walking = best
            p.running = second
            p.stationary = 1 - best - second
            return machine.decide(time: 1, probabilities: p)?.confidence
        }
        #expect(confidence(0.45, 0.40) == .low)
        #expect(confidence(0.60, 0.30) == .medium)
        #expect(confidence(0.90, 0.05) == .high)
    }

    /// Thresholds on a probability or a vote margin only mean something within 0…1: 1.5 would
    /// never be reached (no trip would ever become automotive) and -0.5 always would. The
    /// confidence levels are ordered: a medium margin above the high one leaves no medium.
    @Test func probabilityThresholdsOutsideZeroToOneAreRefusedNamingTheSetting() {
        let settings: [(String, WritableKeyPath<ActivityConfiguration, Double>)] = [
            ("vehicleEnterProbability", \.vehicleEnterProbability), ("switchProbability", \.switchProbability),
            ("mediumConfidenceMargin", \.mediumConfidenceMargin), ("highConfidenceMargin", \.highConfidenceMargin),
        ]
        for (name, key) in settings {
            for bad in [-0.5, 1.5, Double.nan] {
                var c = ActivityConfiguration()
                c[keyPath: key] = bad
                #expect(c.validationError()?.hasPrefix(name) == true, "\(name) = \(bad): \(c.validationError() ?? "accepted")")
            }
            for good in [0.0, 1.0] where !(name.hasSuffix("Margin")) {
                var c = ActivityConfiguration()
                c[keyPath: key] = good
                #expect(c.validationError() == nil, "\(name) = \(good)")
            }
        }
        var inverted = ActivityConfiguration()
        inverted.mediumConfidenceMargin = 0.6
        inverted.highConfidenceMargin = 0.4
        #expect(inverted.validationError()?.hasPrefix("mediumConfidenceMargin 0.6 is above highConfidenceMargin 0.4") == true)
        var equal = ActivityConfiguration()
        equal.mediumConfidenceMargin = 0.5
        #expect(equal.validationError() == nil, "medium = high: no medium level, but meaningful")
    }

    @Test func clearWalkingIsReportedWithHighConfidence() {
        let detector = ActivityDetector()
        _ = Self.run([(.gait(cadence: 1.8, amplitude: 3.5), 40)], detector: detector)
        #expect(detector.currentActivity?.walking == true)
        #expect(detector.currentActivity?.confidence == .high)
    }

    /// Probabilities that make `best` the clear winner of every vote.
    static func clear(_ best: ActivityClass) -> ClassProbabilities {
        var p = ClassProbabilities()
        p.stationary = 0.02; p.walking = 0.02; p.running = 0.02; p.cycling = 0.02; p.unknown = 0.02
        p[best] = 0.92
        return p
    }

    /// Leaving a gait for `unknown` takes 8 consecutive unknown wins (a second of aperiodic motion
    /// in a walk touches 6 windows and 8 votes); any other change, and unknown after stationary,
    /// takes `enterDecisions` (2). Decisions 1 s apart, written out by hand.
    @Test func unknownReplacesAWalkOnlyAfterEightDecisionsAndABriefStretchNeverDoes() {
        let machine = ActivityStateMachine(configuration: ActivityConfiguration())
        var changes: [(Double, MotionActivity)] = []
        func feed(_ c: ActivityClass, from t0: Int, count: Int) {
            for t in t0..<(t0 + count) {
                if let a = machine.decide(time: Double(t), probabilities: Self.clear(c)) { changes.append((Double(t), a)) }
            }
        }
        feed(.walking, from: 1, count: 20)
        #expect(changes.count == 1 && changes[0].1.walking)
        // Seven unknown decisions (t 21…27), then walking again: the walk goes on, no change.
        feed(.unknown, from: 21, count: 7)
        feed(.walking, from: 28, count: 10)
        #expect(changes.count == 1, "\(changes.map(\.1))")
        // Unknown from t 38: the vote is unknown from t 39 (two of three), the streak counts from
        // there, the 8th win is t 46; startDate is back-dated to t 39.
        feed(.unknown, from: 38, count: 12)
        #expect(changes.count == 2)
        #expect(changes.last?.0 == 46 && changes.last?.1.unknown == true && changes.last?.1.startDate == 39)
        // From stationary, unknown enters after two wins of its vote (as before).
        let still = ActivityStateMachine(configuration: ActivityConfiguration())
        var last: (Double, MotionActivity)?
        for t in 1...20 { if let a = still.decide(time: Double(t), probabilities: Self.clear(.stationary)) { last = (Double(t), a) } }
        #expect(last?.1.stationary == true)
        for t in 21...30 { if let a = still.decide(time: Double(t), probabilities: Self.clear(.unknown)) { last = (Double(t), a) } }
        #expect(last?.0 == 23 && last?.1.unknown == true, "vote unknown from t 22, second win t 23")
    }

    /// A recording that starts in a car: the first 19 decisions cannot meet the 20-decision vehicle
    /// vote, and the windows' car-like share would otherwise be counted as stationary. The machine
    /// says nothing until it can decide (written out by hand: automotive 0.8 in every window; the
    /// vote is met at t 20, automotive's first win; its second win, t 21, enters it, back-dated to 20).
    @Test func aRecordingThatStartsInACarIsNotCalledStationaryWhileTheVehicleVoteFills() {
        let machine = ActivityStateMachine(configuration: ActivityConfiguration())
        var p = ClassProbabilities()
        p.automotive = 0.8
        p.stationary = 0.2
        var changes: [(Double, MotionActivity)] = []
        for t in 1...30 { if let a = machine.decide(time: Double(t), probabilities: p) { changes.append((Double(t), a)) } }
        #expect(changes.count == 1, "\(changes.map(\.1))")
        #expect(changes.first?.0 == 21 && changes.first?.1.automotive == true && changes.first?.1.startDate == 20)
    }

    /// A still hand-held device whose first windows look like a mounted phone: once the mean
    /// automotive share of all windows so far drops below 0.6 (5 × 0.8 then 0.3 each: 0.72, 0.66,
    /// 0.61, then 5.2 / 9 = 0.58 at t 9) it is stationary, back-dated to t 1, and never a car.
    @Test func aStillDeviceThatFirstLooksLikeACarSettlesStationaryOnceTheEvidenceFades() {
        let machine = ActivityStateMachine(configuration: ActivityConfiguration())
        var changes: [(Double, MotionActivity)] = []
        for t in 1...40 {
            var p = ClassProbabilities()
            p.automotive = t <= 5 ? 0.8 : 0.3
            p.stationary = 1 - p.automotive
            if let a = machine.decide(time: Double(t), probabilities: p) { changes.append((Double(t), a)) }
        }
        #expect(changes.count == 1, "\(changes.map(\.1))")
        #expect(changes.first?.0 == 9 && changes.first?.1.stationary == true && changes.first?.1.automotive == false)
        #expect(changes.first?.1.startDate == 1)
    }
}
