#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MotionCore

/// Synthetic signals whose truth is written by hand: a body at rest reads +1 g on its up axis;
/// in free fall it reads 0; a pose rotated by θ about x reads g·(0, sin θ, cos θ).
private struct Signal {
    let rate: Double
    var time = 0.0
    var detectors: MotionEventDetectors
    var events: [MotionEvent] = []
    private var noise: UInt64 = 0x9E37_79B9_7F4A_7C15

    init(rate: Double, configuration: MotionEventConfiguration = MotionEventConfiguration()) {
        self.rate = rate
        detectors = MotionEventDetectors(configuration: configuration, sampleRate: rate)
    }

    /// Small white noise (±0.02 m/s²), like a quiet MEMS accelerometer.
    private mutating func jitter() -> Double {
        noise = noise &* 6364136223846793005 &+ 1442695040888963407
        return (Double(noise >> 11) / Double(1 << 53) - 0.5) * 0.04
    }

    /// Feeds `duration` s of `force(t)` (m/s², t from the segment start) and `rotation(t)` rad/s.
    mutating func run(_ duration: Double, force: (Double) -> Vector3 = { _ in Vector3(0, 0, standardGravity) },
                      rotation: (Double) -> Vector3 = { _ in .zero }) {
        let n = Int((duration * rate).rounded())
        for i in 0..<n {
            let t = Double(i) / rate
            let f = force(t) + Vector3(jitter(), jitter(), jitter())
            var found: [MotionEvent] = []
            detectors.update(time: time, specificForce: f, rotationRate: rotation(t)) { found.append($0) }
            events += found
            time += 1 / rate
        }
    }

    func of(_ type: MotionEventType) -> [MotionEvent] { events.filter { $0.type == type } }
}

private let g = standardGravity
private func tilted(_ degrees: Double) -> Vector3 { Vector3(0, g * degrees.radians.sin, g * degrees.radians.cos) }

@Suite("Motion events: free fall and shock")
struct FreeFallAndShockTests {
    @Test func aDropOf0_35sIs0_6mThenOneShockWithItsPeak() {
        var s = Signal(rate: 1000)
        s.run(1)
        s.run(0.35) { _ in .zero }                       // free fall: the accelerometer reads 0
        s.run(0.010) { _ in Vector3(0, 0, 5 * g) }        // a 10 ms, 5 g impact
        s.run(1)
        let falls = s.of(.freeFall)
        #expect(falls.count == 1)
        if let f = falls.first {
            #expect(abs(f.duration - 0.35) < 0.002)
            // h = g t²/2 = 9.80665 · 0.35² / 2 = 0.6006 m
            #expect(abs(f.dropHeight - 0.6006) < 0.01)
            #expect(abs(f.onset - 1.0) < 0.002)
        }
        let shocks = s.of(.shock)
        #expect(shocks.count == 1)
        if let k = shocks.first {
            #expect(abs(k.peak - 5) < 0.01)
            #expect(abs(k.duration - 0.010) < 0.0015)
            #expect(abs(k.onset - 1.35) < 0.002)
        }
    }

    @Test func aShortDipIsNotAFall() {
        var s = Signal(rate: 1000)
        s.run(1)
        s.run(0.05) { _ in .zero }   // 50 ms: a 1.2 cm "drop", a bump rather than a fall
        s.run(1)
        #expect(s.of(.freeFall).isEmpty)
    }

    @Test func walkingLoadsAreNotShocks() {
        var s = Signal(rate: 100)
        // 2 steps/s, ±0.8 g on top of gravity: peaks of 1.8 g, under the 3 g threshold.
        s.run(20) { t in Vector3(0, 0, g * (1 + 0.8 * (2 * .pi * 2 * t).sin)) }
        #expect(s.of(.shock).isEmpty)
        #expect(s.of(.freeFall).isEmpty)
    }
}

@Suite("Motion events: tilt thresholds")
struct TiltThresholdTests {
    static func door() -> MotionEventConfiguration {
        var c = MotionEventConfiguration()
        c.tiltThresholds = [TiltThreshold(name: "door", onAbove: 60, offBelow: 20, onDwell: 1, offDwell: 1,
                                          onName: "open", offName: "closed")]
        return c
    }

    @Test func doorOpensAfterADwellAbove60AndClosesBelow20() {
        var s = Signal(rate: 100, configuration: Self.door())
        s.run(2)
        s.run(0.5) { t in tilted(180 * t) }      // swings to 90° in 0.5 s (crosses 60° at 1/3 s)
        s.run(4) { _ in tilted(90) }
        #expect(abs(s.detectors.tilt.tilt - 90) < 0.5)
        // 90° about x, top edge up: Core Motion pitch +90° (roll is undefined there, gimbal lock).
        #expect(abs(s.detectors.tilt.pitch - 90) < 0.5)
        s.run(0.5) { t in tilted(90 - 180 * t) }
        s.run(4)
        let changes = s.of(.tiltThreshold)
        #expect(changes.map(\.state) == [true, false])
        if changes.count == 2 {
            // Open: the tilt passes 60° at ≈ 2.33 s (plus the 2 Hz low-pass lag, < 0.15 s), then 1 s dwell.
            #expect(changes[0].time > 3.3 && changes[0].time < 3.55, "open at \(changes[0].time)")
            // Closed: below 20° at ≈ 6.5 + 0.39 s, then 1 s.
            #expect(changes[1].time > 7.85 && changes[1].time < 8.1, "closed at \(changes[1].time)")
        }
    }

    @Test func aBriefSwingPastTheThresholdDoesNotOpen() {
        var s = Signal(rate: 100, configuration: Self.door())
        s.run(2)
        s.run(0.5) { _ in tilted(75) }          // 0.5 s above 60°: shorter than the 1 s dwell
        s.run(3)
        #expect(s.of(.tiltThreshold).isEmpty)
    }

    @Test func hoveringBetweenTheLevelsDoesNotChatter() {
        var s = Signal(rate: 100, configuration: Self.door())
        s.run(1) { _ in tilted(70) }
        s.run(3) { _ in tilted(70) }
        s.run(10) { t in tilted(40 + 15 * (2 * .pi * 0.5 * t).sin) }  // 25…55°: neither level
        #expect(s.of(.tiltThreshold).map(\.state) == [true])
    }

    @Test func setLevelMakesTheCurrentPoseZero() {
        var s = Signal(rate: 100)
        s.run(3) { _ in tilted(30) }
        #expect(abs(s.detectors.tilt.tilt - 30) < 0.5)
        s.detectors.setZero()
        s.run(1) { _ in tilted(30) }
        #expect(s.detectors.tilt.tilt < 0.5)
        s.run(3) { _ in tilted(45) }
        #expect(abs(s.detectors.tilt.tilt - 15) < 0.5)
        // 30° → 45° about x with the top (+y) edge rising: Core Motion pitch +15° from the zero
        // pose, no roll (the axis conventions themselves: TiltAnglesTests).
        #expect(abs(s.detectors.tilt.pitch - 15) < 0.5)
        #expect(abs(s.detectors.tilt.roll) < 0.5)
    }
}

@Suite("Motion events: taps")
struct TapTests {
    /// A tap: the struck board rings at 300 Hz, decaying with a 20 ms time constant, `amplitude` g on z.
    static func tap(_ amplitude: Double) -> (Double) -> Vector3 {
        { t in Vector3(0, 0, g + amplitude * g * (2 * .pi * 300 * t).sin * (-t / 0.02).exp) }
    }

    @Test func oneTapIsOneTap() {
        var s = Signal(rate: 1000)
        s.run(1)
        s.run(0.3, force: Self.tap(4))
        s.run(1)
        #expect(s.of(.tap).count == 1)
        #expect(s.of(.doubleTap).isEmpty)
        if let t = s.of(.tap).first {
            #expect(abs(t.onset - 1.0) < 0.005)
            #expect(t.time - t.onset < 0.2, "reported once the ring has decayed")
        }
    }

    /// The contact force of a knock is a half sine. One of 6 ms and 4 g, sampled at 1 kHz, reads
    /// 2 g, 3.5 g, 4 g, 3.5 g, 2 g above gravity; high-passed at 15 Hz its first sample is about
    /// 1.8 g (above the 1 g quiet level, under the 2 g threshold) and its second about 2.6 g.
    /// The quiet before it is the time before its first loud sample, so it is one tap.
    @Test func aKnockThatRisesOverTwoSamplesIsATap() {
        var s = Signal(rate: 1000)
        s.run(1)
        s.run(0.3) { t in Vector3(0, 0, g + (t < 0.006 ? 4 * g * (Double.pi * t / 0.006).sin : 0)) }
        s.run(1)
        #expect(s.of(.tap).count == 1)
        if let t = s.of(.tap).first {
            #expect(abs(t.onset - 1.001) < 0.0015, "onset at the first loud sample, \(t.onset)")
            #expect(t.peak > 2.5 && t.peak < 3.3, "peak \(t.peak) g")
        }
    }

    @Test func twoTapsAThirdOfASecondApartAreADoubleTap() {
        var s = Signal(rate: 1000)
        s.run(1)
        s.run(0.3, force: Self.tap(4))
        s.run(0.4, force: Self.tap(4))
        s.run(1)
        #expect(s.of(.tap).count == 2)
        #expect(s.of(.doubleTap).count == 1)
    }

    @Test func tapsASecondApartAreTwoSingleTaps() {
        var s = Signal(rate: 1000)
        s.run(1)
        s.run(1, force: Self.tap(4))
        s.run(1, force: Self.tap(4))
        #expect(s.of(.tap).count == 2)
        #expect(s.of(.doubleTap).isEmpty)
    }

    @Test func sustainedVibrationAndGaitAreNotTaps() {
        var s = Signal(rate: 1000)
        s.run(1)
        s.run(3) { t in Vector3(0, 0, g + 2 * g * (2 * .pi * 60 * t).sin) }      // a 60 Hz, 2 g buzz
        s.run(1)
        s.run(10) { t in Vector3(0, 0, g * (1 + 0.8 * (2 * .pi * 2 * t).sin)) }   // steps
        #expect(s.of(.tap).isEmpty)
    }

    @Test func aGentleTouchUnderTheThresholdIsNotATap() {
        var s = Signal(rate: 1000)
        s.run(1)
        s.run(0.5, force: Self.tap(0.8))
        #expect(s.of(.tap).isEmpty)
    }

    @Test func tapsNeedAFastEnoughSampleRate() {
        var s = Signal(rate: 50)
        s.run(1)
        s.run(0.5, force: Self.tap(6))
        #expect(!s.detectors.tap.isAvailable)
        #expect(s.of(.tap).isEmpty)
    }
}

@Suite("Motion events: vibration")
struct VibrationTests {
    static func machine() -> MotionEventConfiguration {
        var c = MotionEventConfiguration()
        // Band edges are the −3 dB points of fourth-order Butterworth filters: tones well inside
        // a band keep ~98 % of their RMS, tones an octave outside keep ~6 %.
        c.vibration.bands = [VibrationBand(name: "drum", low: 8, high: 20), VibrationBand(name: "motor", low: 30, high: 80)]
        return c
    }

    @Test func aRunningMotorIsRunningWithItsRMSFrequencyAndBand() {
        var s = Signal(rate: 400, configuration: Self.machine())
        s.run(10)
        // A 50 Hz motor, 2 m/s² amplitude on x: RMS = 2/√2 = 1.414 m/s², peak 2.
        s.run(20) { t in Vector3(2 * (2 * .pi * 50 * t).sin, 0, g) }
        let r = s.detectors.vibration.latest!
        #expect(abs(r.rms - 1.414) < 0.03, "rms \(r.rms)")
        #expect(abs(r.peak - 2) < 0.1, "peak \(r.peak)")
        #expect(abs(r.dominantFrequency - 50) < 1, "f \(r.dominantFrequency)")
        #expect(abs(r.bands[1] - 1.414) < 0.05, "motor band \(r.bands[1])")
        #expect(r.bands[0] < 0.05, "drum band \(r.bands[0])")
        s.run(20)
        let start = s.of(.vibrationStart), stop = s.of(.vibrationStop)
        #expect(start.count == 1 && stop.count == 1)
        // Running after the 5 s on-dwell (1 s windows: within 5…7 s of the start at 10 s).
        if let a = start.first { #expect(a.time >= 15 && a.time <= 17, "start at \(a.time)") }
        // Idle after the 5 s off-dwell (end at 30 s).
        if let b = stop.first { #expect(b.time >= 35 && b.time <= 37.5, "stop at \(b.time)") }
        #expect(!s.of(.vibrationChanged).isEmpty, "the level change from silence is an STA/LTA change")
    }

    /// Hysteresis: a level between idle (< 0.5 m/s²) and running (> 1.0) changes nothing. A 50 Hz
    /// motor of amplitude 1.06 m/s² has RMS 1.06/√2 = 0.75: it neither starts an idle machine nor
    /// stops a running one, so over 110 s of idle, in-between, running, in-between, idle there is
    /// exactly one start (5 s into the 1.41 m/s² part, at 40 s) and one stop (5 s into the silence, at 90 s).
    @Test func aLevelBetweenIdleAndRunningNeverChatters() {
        var s = Signal(rate: 400, configuration: Self.machine())
        let between: (Double) -> Vector3 = { t in Vector3(1.06 * (2 * .pi * 50 * t).sin, 0, g) }
        s.run(10)
        s.run(30, force: between)
        #expect(s.of(.vibrationStart).isEmpty, "RMS 0.75 m/s² started an idle machine")
        s.run(20) { t in Vector3(2 * (2 * .pi * 50 * t).sin, 0, g) }
        s.run(30, force: between)
        #expect(s.of(.vibrationStop).isEmpty, "RMS 0.75 m/s² stopped a running machine")
        s.run(20)
        let start = s.of(.vibrationStart), stop = s.of(.vibrationStop)
        #expect(start.count == 1 && stop.count == 1, "starts \(start.map(\.time)), stops \(stop.map(\.time))")
        if let a = start.first { #expect(a.time >= 45 && a.time <= 47, "start at \(a.time)") }
        if let b = stop.first { #expect(b.time >= 95 && b.time <= 97.5, "stop at \(b.time)") }
    }

    @Test func aWasherDrumNeedsTheLowerHighPass() {
        // A 14 Hz drum (840 rpm), 2 m/s² amplitude: with the 10 Hz high-pass nearly the whole
        // RMS (1.414; 3 % lost at 1.4× the cutoff).
        var c = Self.machine()
        c.vibration.highPassCutoff = 10
        var s = Signal(rate: 400, configuration: c)
        s.run(10) { t in Vector3(2 * (2 * .pi * 14 * t).sin, 0, g) }
        let r = s.detectors.vibration.latest!
        #expect(abs(r.rms - 1.414) < 0.07, "rms \(r.rms)")
        #expect(abs(r.bands[0] - 1.414) < 0.12, "drum band \(r.bands[0])")
    }

    @Test func gravityAndSlowMotionAreNotVibration() {
        var s = Signal(rate: 400, configuration: Self.machine())
        // A door swinging ±60° at 0.5 Hz: large slow changes of the gravity reading.
        s.run(30) { t in tilted(60 * (2 * .pi * 0.5 * t).sin) }
        #expect(s.of(.vibrationStart).isEmpty)
        #expect(s.detectors.vibration.latest!.rms < 0.05)
    }

    @Test func aSteadyMachineGivesNoChangeEventsAfterItSettles() {
        var s = Signal(rate: 400)
        s.run(60) { t in Vector3(2 * (2 * .pi * 40 * t).sin, 0, g) }
        #expect(s.of(.vibrationChanged).allSatisfy { $0.time < 10 })
    }
}

@Suite("Motion events: motion, stationary, tamper, fall")
struct MotionStateTests {
    @Test func rotationIsMotionAndStillnessIsStationary() {
        var s = Signal(rate: 100)
        s.run(5)
        s.run(1, rotation: { _ in Vector3(0, 0, 1) })   // 1 rad/s yaw, gravity unchanged
        s.run(5)
        let m = s.of(.motion), r = s.of(.stationary)
        #expect(m.count == 1 && r.count == 1)
        if let m = m.first { #expect(abs(m.onset - 5) < 0.02 && m.time - 5 < 0.15) }
        if let r = r.first { #expect(abs(r.time - 8) < 0.05) }   // last moving sample ≈ 6 s, + 2 s
        #expect(s.of(.significantMotion).isEmpty)
    }

    @Test func longMotionIsSignificantOnce() {
        var s = Signal(rate: 100)
        s.run(3)
        s.run(12, rotation: { _ in Vector3(0, 0, 1) })
        let sig = s.of(.significantMotion)
        #expect(sig.count == 1)
        if let e = sig.first { #expect(abs(e.time - 8) < 0.05) }   // 5 s after the onset at 3 s
    }

    @Test func aGyroBiasIsNotMotion() {
        var s = Signal(rate: 100)
        s.run(30, rotation: { _ in Vector3(0.05, -0.03, 0.04) })   // ~4°/s of bias, at rest
        #expect(s.of(.motion).isEmpty)
    }

    @Test func tamperFiresOnlyWhileArmed() {
        var s = Signal(rate: 100)
        s.run(3)
        s.run(3) { _ in tilted(10) }
        #expect(s.of(.tamper).isEmpty)
        s.run(3)
        s.detectors.armTamper()
        s.run(3)
        #expect(s.of(.tamper).isEmpty, "armed and still: nothing")
        s.run(3) { _ in tilted(10) }
        #expect(s.of(.tamper).count == 1)
        s.detectors.disarmTamper()
        s.run(3)
        #expect(s.of(.tamper).count == 1)
    }

    /// A lid prised open slowly: 0° → 10° over 60 s (0.17°/s, far below the any-motion thresholds:
    /// the specific force moves < 0.02 m/s² from its 1 s average, no rotation rate), so no `motion`
    /// event, and only the tilt path can call it tampering: at 5° from the arming pose, 30 s in.
    @Test func aSlowTiltWithoutMotionIsTamperingAtFiveDegrees() {
        var s = Signal(rate: 100)
        s.run(3)
        s.detectors.armTamper()
        s.run(3)
        let start = s.time
        s.run(60) { t in tilted(10 * t / 60) }
        #expect(s.of(.motion).isEmpty, "the creep must not look like motion: \(s.of(.motion).map(\.time))")
        let tamper = s.of(.tamper)
        #expect(tamper.count == 1)
        if let e = tamper.first {
            // 5° at 30 s; the 2 Hz low-pass of the up-vector lags well under a second.
            #expect(e.time - start >= 29.9 && e.time - start <= 31.5, "tamper at \(e.time - start) s into the creep")
            #expect(abs(e.angle - 5) < 0.3, "tilt \(e.angle)°")
        }
    }

    static func fallConfiguration() -> MotionEventConfiguration {
        var c = MotionEventConfiguration()
        c.enabled.insert(.fall)
        return c
    }

    @Test func aFallIsAnImpactThenLyingStill() {
        var s = Signal(rate: 100, configuration: Self.fallConfiguration())
        s.run(5)                                                   // upright: z up
        s.run(0.4) { t in tilted(90 * t / 0.4) * 0.5 }             // toppling, half-unloaded
        s.run(0.05) { _ in Vector3(0, 4 * g, 0) }                   // 4 g impact on the ground
        s.run(15) { _ in Vector3(0, g, 0) }                         // lying on the side, still
        let falls = s.of(.fall)
        #expect(falls.count == 1)
        if let f = falls.first {
            #expect(abs(f.onset - 5.4) < 0.05)
            #expect(f.angle > 80)
            #expect(f.time - f.onset < 10)
        }
    }

    @Test func aJumpLandingUprightIsNotAFall() {
        var s = Signal(rate: 100, configuration: Self.fallConfiguration())
        s.run(5)
        s.run(0.3) { _ in .zero }
        s.run(0.05) { _ in Vector3(0, 0, 4 * g) }
        s.run(15)
        #expect(s.of(.fall).isEmpty)
        #expect(s.of(.shock).count == 1)
    }
}

@Suite("Motion events: impacts that are not taps")
struct ImpactNotTapTests {
    @Test func theLandingOfADropIsAShockButNotATap() {
        var s = Signal(rate: 1000)
        s.run(1)
        s.run(0.35) { _ in .zero }
        s.run(0.010) { _ in Vector3(0, 0, 8 * g) }
        s.run(1)
        #expect(s.of(.shock).count == 1)
        #expect(s.of(.tap).isEmpty)
    }
}
