#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MotionCore

/// The pedometer's rules that use the walk's own step rhythm (docs/activity.md, Pedometer): the
/// second-bump rule (`secondBumpFraction`: a phone held in the hand on a slow walk bounces once more
/// inside each step; that bump is not a step) and the expected-step rule (`expectedStepFraction`:
/// a gentle step where the rhythm puts the next one counts).
@Suite("Pedometer rhythm rules")
struct PedometerRhythmTests {
    /// Runs a pedometer over |f| built pulse by pulse at 50 Hz, gravity along a tilted axis: each
    /// heel strike at `strikes[k]` s is a pulse (+4 m/s², σ 60 ms) and its unloading trough 0.15 s
    /// later (−2 m/s²); each time in `bounces` adds a pulse as large as the impact. ±0.01 m/s² of
    /// dither so the still start is seen below zero. The strikes numbered in `gentle` are
    /// `gentleSize` times as large (pulse and trough). Returns the steps counted.
    /// `rate`: the source rate, Hz (samples at i / rate); `spike`: each strike also has a sharp
    /// impact of this height, m/s² (σ 10 ms).
    static func count(strikes: [Double], bounces: [Double] = [], gentle: Set<Int> = [], gentleSize: Double = 1,
                      configuration: PedometerConfiguration = PedometerConfiguration(), rate: Double = 50,
                      spike: Double = 0) -> Int {
        var pedometer = Pedometer(configuration: configuration)
        let up = Vector3(0.3, -0.5, 0.81).normalized
        func pulse(_ x: Double) -> Double { abs(x) < 0.5 ? Glibc.exp(-0.5 * (x / 0.06) * (x / 0.06)) : 0 }
        let end = (strikes.last ?? 0) + 2
        var i = 0
        while Double(i) / rate < end {
            let t = Double(i) / rate
            var a = i % 2 == 0 ? 0.01 : -0.01
            for (k, s) in strikes.enumerated() where abs(t - s) < 0.7 {
                let size = gentle.contains(k) ? gentleSize : 1
                a += size * (4 * pulse(t - s) - 2 * pulse(t - s - 0.15))
                if spike > 0, abs(t - s) < 0.05 { a += spike * Glibc.exp(-0.5 * ((t - s) / 0.01) * ((t - s) / 0.01)) }
            }
            for b in bounces where abs(t - b) < 0.5 { a += 4 * pulse(t - b) }
            _ = pedometer.update(time: t, specificForce: up * (9.81 + a))
            i += 1
        }
        return pedometer.data.numberOfSteps
    }

    /// Truth: the heel strikes written into the signal, `cadence` × 60 s (72, 84, 96); the bounces
    /// (0.35 and 0.4 of the step period after every second step once the walk is established,
    /// after 10 s: 30–40 of them) are not steps. With the rule off (`secondBumpFraction` 0) the
    /// detector counts most of them (measured: 102 and 119 of 72 and 84).
    @Test(arguments: [1.2, 1.4, 1.6])
    func aHandBounceInsideEachStepIsNotAStep(cadence: Double) {
        let n = Int((cadence * 60).rounded())
        let strikes = (0..<n).map { 1 + Double($0) / cadence }
        for bounceAt in [0.35, 0.4] {
            let bounces = strikes.enumerated().filter { $0.element > 10 && $0.offset % 2 == 0 }.map { $0.element + bounceAt / cadence }
            let counted = Self.count(strikes: strikes, bounces: bounces)
            #expect(abs(counted - n) <= 1, "\(cadence) steps/s, bounce at \(bounceAt) of a step: counted \(counted), truth \(n)")
        }
    }

    /// A walk that breaks into a run: 20 s at 1.4 steps/s, then the cadence rises linearly to
    /// 2.8 steps/s within 1.5 s (three steps, each interval shorter than the last, so the walk's
    /// mean period lags behind) and stays there for 20 s. Truth: the strikes written (28 + 3 + 57 = 88).
    /// No step of the ramp falls below half the lagging period, so every one counts; a fraction of
    /// 0.7 would lock onto the stride here (measured: 59 of 88).
    @Test func aWalkSpeedingUpIntoARunKeepsEveryStep() {
        var strikes: [Double] = []
        var t = 1.0
        while t < 21 { strikes.append(t); t += 1 / 1.4 }
        let rampStart = t
        while t < rampStart + 1.5 { strikes.append(t); t += 1 / (1.4 + 1.4 * (t - rampStart) / 1.5) }
        let runStart = t
        while t < runStart + 20 { strikes.append(t); t += 1 / 2.8 }
        let counted = Self.count(strikes: strikes)
        #expect(abs(counted - strikes.count) <= 1, "counted \(counted), truth \(strikes.count)")
    }

    /// A strongly asymmetric gait (a knee unit, where the far foot's strike is felt early): 10 s
    /// even at 0.55 s a step, then over 10 s the steps drift to 0.26 s / 0.84 s (same stride,
    /// 1.1 s) and stay so for 30 s. The short step is below half the mean period (0.275 s) but
    /// repeats one stride later, so it is a step. Truth: the strikes written.
    @Test func theShortStepOfAStronglyAsymmetricGaitStillCounts() {
        var strikes: [Double] = []
        var t = 1.0
        var k = 0
        while t < 51 {
            strikes.append(t)
            let drift = Swift.min(1, Swift.max(0, (t - 11) / 10))
            t += k % 2 == 0 ? 0.55 - 0.29 * drift : 0.55 + 0.29 * drift
            k += 1
        }
        let counted = Self.count(strikes: strikes)
        #expect(abs(counted - strikes.count) <= 1, "counted \(counted), truth \(strikes.count)")
    }

    /// The expected-step rule (`expectedStepFraction`): a steady walk at 1.8 steps/s for 60 s in
    /// which, after 10 s, every fifth step is a gentle one (`size` × the others). Truth: the 108
    /// strikes written; the gentle ones fall exactly one step period after the last step. With the
    /// rule off (`expectedStepFraction` 1) all 18 gentle steps are missed (measured: 90).
    @Test(arguments: [0.25, 0.3])
    func aGentleStepWhereTheRhythmPutsItCounts(size: Double) {
        let strikes = (0..<108).map { 1 + Double($0) / 1.8 }
        let gentle = Set(strikes.indices.filter { strikes[$0] > 10 && $0 % 5 == 0 })
        let counted = Self.count(strikes: strikes, gentle: gentle, gentleSize: size)
        #expect(abs(counted - 108) <= 1, "gentle steps \(size) × the others: counted \(counted), truth 108")
    }

    /// The full-rate rules at every rate: what a low-rate source is scored against below.
    static var fullRateRulesOnly: PedometerConfiguration {
        var c = PedometerConfiguration()
        c.lowRateBelow = 0
        return c
    }

    /// A 10 Hz source without an anti-alias filter catches a sharp heel strike whole only when a
    /// sample falls on it: a steady walk at `cadence` steps/s for 60 s whose every strike carries,
    /// besides its 4 m/s² body pulse, a sharp impact (+10 m/s², σ 10 ms), sampled at 10 Hz, so the
    /// impact's share of each step drifts with the cadence from nothing to all of it (at 2 steps/s
    /// the samples keep one phase). Truth: the strikes written. The full-rate rules at 10 Hz count
    /// 96 of 102 and 104 of 111 (measured); at 50 Hz every strike is counted either way. Larger
    /// impacts still cost steps at 10 Hz (+20 m/s² at 1.85 steps/s: 90 of 111; full-rate rules 55).
    @Test(arguments: [1.7, 1.85, 2.0])
    func atTenHertzStepsCaughtWholeOrInPartAreCounted(cadence: Double) {
        let n = Int((cadence * 60).rounded())
        let strikes = (0..<n).map { 1 + Double($0) / cadence }
        let atTen = Self.count(strikes: strikes, rate: 10, spike: 10)
        let atFifty = Self.count(strikes: strikes, rate: 50, spike: 10)
        #expect(abs(atTen - n) <= 2, "\(cadence) steps/s at 10 Hz: counted \(atTen), truth \(n)")
        #expect(abs(atFifty - n) <= 1, "\(cadence) steps/s at 50 Hz: counted \(atFifty), truth \(n)")
    }

    /// At 10 Hz a step whose impact falls between two samples can vanish: a steady walk at
    /// 1.8 steps/s for 60 s whose every fifth strike after 10 s is missing from the signal (18 of
    /// 108). Truth: the walk's 108 steps — two step periods between two steps of a steady walk at a
    /// low source rate are two steps. At 50 Hz a strike is never missed that way, so the same signal
    /// counts the 90 strikes it has (the rule is for low-rate sources only).
    @Test func atTenHertzAStepThatFellBetweenSamplesIsCounted() {
        let all = (0..<108).map { 1 + Double($0) / 1.8 }
        let strikes = all.indices.filter { !(all[$0] > 10 && $0 % 5 == 0) }.map { all[$0] }
        let atTen = Self.count(strikes: strikes, rate: 10)
        let atTenFullRate = Self.count(strikes: strikes, configuration: Self.fullRateRulesOnly, rate: 10)
        let atFifty = Self.count(strikes: strikes, rate: 50)
        #expect(abs(atTen - 108) <= 2, "10 Hz: counted \(atTen), truth 108 (\(strikes.count) in the signal)")
        #expect(abs(atTenFullRate - strikes.count) <= 2, "10 Hz, full-rate rules: \(atTenFullRate) of the \(strikes.count) in the signal")
        #expect(abs(atFifty - strikes.count) <= 1, "50 Hz: counted \(atFifty), \(strikes.count) in the signal")
    }

    /// The low-rate rules follow the source rate measured over each second, not a setting: on at
    /// 10 and 12.5 Hz, off at 16, 25 and 50 Hz (the threshold is 16 Hz), and off at 10 Hz when
    /// `lowRateBelow` is 0.
    @Test func theLowRateRulesApplyBelowSixteenHertzOfSource() {
        func uses(rate: Double, configuration: PedometerConfiguration = PedometerConfiguration()) -> Bool {
            var p = Pedometer(configuration: configuration)
            var i = 0
            while Double(i) / rate < 5 {
                _ = p.update(time: Double(i) / rate, specificForce: Vector3(0, 0, 9.81 + (i % 2 == 0 ? 0.01 : -0.01)))
                i += 1
            }
            return p.usesLowRateRules
        }
        #expect(uses(rate: 10) && uses(rate: 12.5))
        #expect(!uses(rate: 20) && !uses(rate: 25) && !uses(rate: 50))
        #expect(!uses(rate: 10, configuration: Self.fullRateRulesOnly))
    }
}
