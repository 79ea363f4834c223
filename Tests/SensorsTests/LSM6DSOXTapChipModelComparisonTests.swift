import Testing
import Foundation
import MotionCore
@testable import Sensors
import TestSupportPaths

/// Issue 16: the LSM6DSOX's single/double-tap engine against the software `tap` / `double_tap`
/// detector on real recordings, through a behavioural model written from ST's AN5272 and DS13092
/// (`ChipModels/LSM6DSOXTapModel.swift`, paraphrased from memory of the documents), NOT silicon.
/// The model is fed the register bytes `LSM6DSx.configure` wrote over `ScriptedLSM6DSx` for the
/// default event configuration with every engine handed over (`LSM6DSOXRegisterFile`), never the
/// driver's settings; its TAP_SRC bytes go through the driver's own decoder
/// (`LSM6DSx.decodeEventSources`, engines as MD1_CFG routes them) and `MotionEventDetectors`
/// with the chip deciding taps. The windows are ODR periods of the ODR the driver picked
/// (CTRL1_XL), the samples the recording's (BROAD ~286 Hz → 416 Hz, dsa 25 Hz → 26 Hz).
@Suite("LSM6DSOX data-sheet tap model against the software tap detector (real recordings)", .serialized,
       .enabled(if: SharedDataPath.root != nil, "../shared/data not found next to the package"))
struct LSM6DSOXTapChipModelComparisonTests {
    static let engines: Set<ChipEngine> = [.motion, .freeFall, .tap, .orientation]

    static func model(_ r: LSM6DSOXRegisterFile) -> LSM6DSOXTapModel {
        LSM6DSOXTapModel(tapCfg0: r[0x56], tapCfg1: r[0x57], tapCfg2: r[0x58], tapThs6D: r[0x59], intDur2: r[0x5A],
                         wakeUpThs: r[0x5B], fullScaleG: r.fullScaleG, odr: r.odr)
    }

    func run(_ path: String, mutate: (inout [UInt8]) -> Void = { _ in }) throws -> ChipModelReplay.Outcome {
        let (rows, rate) = try ChipModelReplay.load(path)
        let r = try LSM6DSOXRegisterFile(rate: rate, engines: Self.engines, mutate: mutate)
        var tap = Self.model(r)
        let routed = r.routed
        return ChipModelReplay.compare(rows, rate: rate, chipDecides: [.tap]) { time, g in
            LSM6DSx.decodeEventSources(wakeUpSource: 0, tapSource: tap.update(time: time, g.x, g.y, g.z), enabled: routed)
        }
    }

    @Test func theModelReadsTheWindowsWorkedByHand() throws {
        // BROAD's ~286 Hz → ODR 416 Hz, ±4 g (CTRL1_XL 0x68). tap_g 2 g / (4 g / 32) = 16 on each
        // axis (TAP_CFG1 0x10; TAP_CFG2 0x80 | 16 = 0x90; TAP_THS_6D 60° code 2 << 5 | 16 = 0x50);
        // TAP_CFG0 0x41 | X/Y/Z_EN 0x0E = 0x4F. INT_DUR2: SHOCK 0.25 s × 416 = 104 periods → 24, the
        // longest (code 3); QUIET 0.05 s × 416 = 20.8 → 12, the longest (code 3); DUR 0.6 s × 416 =
        // 250 → 256 = 8 × 32 (code 8): 8 << 4 | 3 << 2 | 3 = 0x8F. So the model's windows are
        // 24/416 = 57.7 ms, 12/416 = 28.8 ms and 256/416 = 615 ms, and the slope (half a sample
        // step) must pass 2 g: a 4 g step between two samples.
        let r = try LSM6DSOXRegisterFile(rate: 286, engines: Self.engines)
        #expect([r[0x10], r[0x56], r[0x57], r[0x58], r[0x59], r[0x5A]] == [0x68, 0x4F, 0x10, 0x90, 0x50, 0x8F])
        #expect(r[0x5B] & 0x80 != 0)   // SINGLE_DOUBLE_TAP
        #expect(r.routed.isSuperset(of: [.chipTap, .chipDoubleTap]))
        let m = Self.model(r)
        #expect(m.thresholdsG == [2, 2, 2] && m.enabledAxes == [true, true, true] && m.priority == [0, 1, 2] && m.doubleTap)
        #expect(abs(m.shock - 24.0 / 416) < 1e-12 && abs(m.quiet - 12.0 / 416) < 1e-12 && abs(m.window - 256.0 / 416) < 1e-12)
        // dsa's 25 Hz → 26 Hz: SHOCK 6.5 periods → 8 (code 1, 8 nearer than 4), QUIET 1.3 → 2
        // (code 0), DUR 15.6 → 16 (code 0): INT_DUR2 0x01; windows 8/26 = 308 ms, 2/26 = 77 ms, 16/26 = 615 ms.
        let d = try LSM6DSOXRegisterFile(rate: 25, engines: Self.engines)
        #expect(d[0x5A] == 0x01 && d.odr == 26)
        let md = Self.model(d)
        #expect(abs(md.shock - 8.0 / 26) < 1e-12 && abs(md.quiet - 2.0 / 26) < 1e-12 && abs(md.window - 16.0 / 26) < 1e-12)
    }

    @Test func theModelFollowsThePriorityAxisAndPairsTaps() throws {
        // Hand-made samples at 416 Hz, windows as above (shock 57.7 ms, quiet 28.8 ms, DUR 615 ms):
        // a 5 g step on y and z at once at sample 10 (slopes 2.5 g > 2 g on both), back at 11 (the
        // step back is a 2.5 g slope too), flat from 12: below again 2 periods after the onset,
        // inside SHOCK, so the tap is decided at 12. Priority XYZ reports Y (Y_TAP bit 1), the first
        // of the two in that order: TAP_IA 0x40 | SINGLE_TAP 0x20 | 0x02 = 0x62.
        let r = try LSM6DSOXRegisterFile(rate: 286, engines: Self.engines)
        var m = Self.model(r)
        let dt = 1.0 / 416
        var out: [(Int, UInt8)] = []
        func feed(_ n: Int, _ y: Double, _ z: Double) { let s = m.update(time: Double(n) * dt, 0, y, z); if s != 0 { out.append((n, s)) } }
        for n in 0..<10 { feed(n, 0, 1) }
        feed(10, 5, 6)             // onset on y and z
        for n in 11..<100 { feed(n, 0, 1) }
        // A second step, on z only, at 100, back at 101: decided at 102; its onset 88 periods =
        // 0.212 s after the first tap's decision at 12, after the 28.8 ms quiet and within the
        // 615 ms DUR: TAP_IA | SINGLE_TAP | DOUBLE_TAP 0x10 | Z_TAP 0x01 = 0x71.
        feed(100, 0, 6)
        for n in 101..<120 { feed(n, 0, 1) }
        #expect(out.map(\.0) == [12, 102] && out.map(\.1) == [0x62, 0x71], "\(out)")
        // TAP_PRIORITY ZYX (3 << 5 in TAP_CFG1): the same first step reports Z (0x61).
        var z = LSM6DSOXTapModel(tapCfg0: r[0x56], tapCfg1: r[0x57] | 3 << 5, tapCfg2: r[0x58], tapThs6D: r[0x59], intDur2: r[0x5A],
                                 wakeUpThs: r[0x5B], fullScaleG: r.fullScaleG, odr: r.odr)
        var first: UInt8 = 0
        for n in 0..<20 { let s = z.update(time: Double(n) * dt, 0, n == 10 ? 5 : 0, n == 10 ? 6 : 1); if s != 0, first == 0 { first = s } }
        #expect(first == 0x61)
    }

    @Test func broadTrial24TapsAgree() throws {
        let o = try run(ChipModelReplay.data + "/fusion/24_disturbed_tapping_A.csv.gz")
        let a = ChipModelReplay.tapAgreement(o)
        // Tolerance the BMI160 comparison fixed before its first run: at least 70 % of the
        // software's taps matched by a model tap within 0.15 s, counts within 30 %.
        // Measured (stop 30): software 16, model 28, matched 14. Stop 33, once the software judges
        // the quiet before a tap where its loud run begins: software 22 (the 22 impacts counted by
        // hand), model 28, matched 20. The model decides a tap when the slope returns below
        // threshold, ~0.13 s before the software (which waits out the ringing and its 50 ms
        // quiet-after).
        #expect(a.software >= 11, "\(a)")
        #expect(a.matched * 10 >= a.software * 7, "\(a)")
        // The model taps twice on one physical tap 40–50 ms apart (68.57/68.61 s, 72.57/72.61,
        // 76.17/76.21, 130.51/130.56/130.60, 154.85/154.90), the second a DOUBLE_TAP: QUIET is at
        // most 12 ODR periods, 28.8 ms at 416 Hz, where the software asks 50 ms below 1 g (half
        // its threshold) after a tap and 0.1 s of quiet before one; the ringing's next 4 g step
        // starts a new tap. Plus taps where the software rejected the impulse (no quiet before it,
        // handling). Known, kept visible (fails once it goes away) and bounded by what was measured.
        let chipDoubles = o.count(o.chip, .doubleTap), softwareDoubles = o.count(o.software, .doubleTap)
        #expect(a.chip >= a.software && a.chip <= 28 && chipDoubles <= 5, "\(a), double taps software \(softwareDoubles) model \(chipDoubles)")
        // Counts within 30 %: a known issue until stop 33 (software 16 against the model's 28);
        // with the software at 22 the model's extra taps on ringing (below) fit inside it.
        #expect(abs(a.chip - a.software) <= max(3, a.software * 3 / 10), "\(a)")
        withKnownIssue("LSM6DSOX tap model pairs a tap with its ringing into a double tap (docs/chip-engines.md)") {
            #expect(chipDoubles == softwareDoubles, "double taps software \(softwareDoubles), model \(chipDoubles)")
        }
    }

    @Test func broadQuietAndVibrationTrialsGiveNoModelTap() throws {
        // Measured (stop 30): no tap from either side on the 10 undisturbed trials and on 27
        // (phone vibration): a sample step of 4 g never happens there.
        let trials = try ChipModelReplay.undisturbedTrials() + [ChipModelReplay.data + "/fusion/27_disturbed_phone_vibration_B.csv.gz"]
        #expect(trials.count >= 11)
        for trial in trials {
            let o = try run(trial)
            let s = o.count(o.software, .tap), c = o.count(o.chip, .tap)
            #expect(s > 0 || c == 0, "\(ChipModelReplay.name(trial)): model \(c) taps, software none")
        }
    }

    @Test func dsaNoModelTapWhileSittingOrLyingAndTapsWhileJumping() throws {
        // At dsa's 25 Hz the software tap detector is off (an impulse is 1–2 samples below
        // `TapConfiguration.minimumSampleRate`, 100 Hz): its answer is "no tap" by design.
        #expect(!TapDetector(sampleRate: 25).isAvailable)
        var checked: [String: Int] = [:], jumpingTaps: [String] = [], modelTaps = 0
        for (file, activity) in try ChipModelReplay.dsaFiles(["jumping", "sitting", "lying_on_back"]) {
            let o = try run(file)
            let c = o.count(o.chip, .tap)
            #expect(o.count(o.software, .tap) == 0)
            if activity == "jumping" {
                if c > 0 { jumpingTaps.append("\(ChipModelReplay.name(file)) \(c)") }
                modelTaps += c
            } else {
                #expect(c == 0, "\(ChipModelReplay.name(file)) \(activity): \(c) model taps")
            }
            checked[activity, default: 0] += 1
        }
        #expect(checked.count == 3, "\(checked)")
        // Measured (stop 30): the driver programs the tap engine at 26 Hz too, and the model
        // taps on landings: T p1_a18 34, RL p1_a18 229, RL p2_a18 20 (T p2_a18 none): 283 over
        // the 4 jumping files, where the software detector is off. ST recommends ≥ 417 Hz for
        // tap; the agent hands `tap` to the chip whatever the rate. Known, kept visible and
        // bounded by what was measured, ± 25 %, so a threshold code that moves the count fails
        // (TAP_THS × 2: 32 taps; ÷ 2: 1 269).
        #expect((212...354).contains(modelTaps), "\(modelTaps): \(jumpingTaps)")
        withKnownIssue("LSM6DSOX tap engine runs at 26 Hz where the software tap detector is off (docs/chip-engines.md)") {
            #expect(jumpingTaps.isEmpty, "\(jumpingTaps)")
        }
    }
}
