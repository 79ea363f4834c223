import Testing
import Foundation
import MotionCore
@testable import Sensors
import TestSupportPaths

/// Issue 16: the LSM6DSOX's wake-up and free-fall engines against the software `motion` and
/// `free_fall` detectors on real recordings, through behavioural models written from ST's
/// AN5272 and DS13092 (`ChipModels/LSM6DSOX*Model.swift`), NOT silicon. Each model is fed the
/// register bytes `LSM6DSx.configure` wrote for the default event configuration over
/// `ScriptedLSM6DSx`, never the driver's settings; the recording's rate stands in for the ODR
/// (BROAD ~286 Hz → 416 Hz, dsa 25 Hz → 26 Hz). Tap and 6D: LSM6DSOXTapChipModelComparisonTests,
/// LSM6DSOX6DChipModelComparisonTests.
@Suite("LSM6DSOX data-sheet engine models against the software detectors (real recordings)", .serialized,
       .enabled(if: SharedDataPath.root != nil, "../shared/data not found next to the package"))
struct LSM6DSOXChipModelComparisonTests {
    func run(_ path: String, mutate: (inout [UInt8]) -> Void = { _ in }) throws -> ChipModelReplay.Outcome {
        let (rows, rate) = try ChipModelReplay.load(path)
        let r = try LSM6DSOXRegisterFile(rate: rate, engines: [.motion, .freeFall], mutate: mutate)
        let wu = r.routed.contains(.chipMotion), ff = r.routed.contains(.chipFreeFall)
        var wake = LSM6DSOXWakeUpModel(wakeUpThs: r[0x5B], wakeUpDur: r[0x5C], fullScaleG: r.fullScaleG)
        var fall = LSM6DSOXFreeFallModel(freeFall: r[0x5D], wakeUpDur: r[0x5C])
        return ChipModelReplay.compare(rows, rate: rate, chipDecides: [.motion, .freeFall]) { _, g in
            var flags = IMUSample.Flags()
            if wake.update(g.x, g.y, g.z), wu { flags.insert(.chipMotion) }
            if fall.update(g.x, g.y, g.z), ff { flags.insert(.chipFreeFall) }
            return flags
        }
    }

    @Test func broadQuietTrialsGiveNoChipEventWhereTheSoftwareGivesNone() throws {
        let trials = try ChipModelReplay.undisturbedTrials()
        #expect(trials.count >= 10)
        for trial in trials {
            let o = try run(trial)
            for type in [MotionEventType.motion, .freeFall] where o.count(o.software, type) == 0 {
                #expect(o.count(o.chip, type) == 0, "\(ChipModelReplay.name(trial)): \(type) chip \(o.count(o.chip, type)), software 0")
            }
        }
    }

    @Test func dsaMotionAndFreeFallWhileJumpingSittingAndLying() throws {
        var checked: [String: Int] = [:], missedMotion: [String] = [], extraFalls: [String] = [], modelFalls = 0
        for (file, activity) in try ChipModelReplay.dsaFiles(["jumping", "sitting", "lying_on_back"]) {
            let name = ChipModelReplay.name(file)
            let o = try run(file)
            let sm = o.count(o.software, .motion), cm = o.count(o.chip, .motion)
            let sf = o.count(o.software, .freeFall), cf = o.count(o.chip, .freeFall)
            if activity == "jumping" { #expect(sm > 0 && cm > 0, "\(name): motion software \(sm), chip model \(cm)") }
            else { #expect(cf == 0 && sf == 0, "\(name) \(activity): free_fall software \(sf), chip model \(cf)") }
            #expect(sm > 0 || cm == 0, "\(name) \(activity): motion chip model \(cm), software 0")
            if sm > 0, cm == 0 { missedMotion.append("\(name) \(sm)/0") }
            if cf > sf { extraFalls.append("\(name) \(sf)/\(cf)") }
            modelFalls += cf
            checked[activity, default: 0] += 1
        }
        #expect(checked.count == 3, "\(checked)")
        // Measured (stop 29), software/model: no model `motion` on T p1_a01 sitting (15/0), T p1_a03
        // and RL p2_a03 lying on back (6/0 each). The driver writes WK_THS for the software's
        // 0.3 m/s² (31 mg at FS/2⁸) but the slope filter halves the sample difference and WAKE_DUR
        // asks 4 samples at 26 Hz, so the chip model needs a ≥ 62 mg step held for 4 samples
        // where the software needs 31 mg off a 1 s average for 0.1 s: much less sensitive.
        // Known, kept visible (fails once it goes away).
        // Bounded by what was measured, so a driver change that widens the gap fails
        // (WK_THS × 2 or WAKE_THS_W cleared: 6 files).
        #expect(missedMotion.count <= 3, "\(missedMotion)")
        withKnownIssue("LSM6DSOX wake-up model misses the software's small motions (docs/chip-engines.md)") {
            #expect(missedMotion.isEmpty, "\(missedMotion)")
        }
        // Measured: model falls on T p1_a18 (0/2), RL p1_a18 (1/7) and RL p2_a18 (0/1) jumping: the engine asks each
        // axis below 312 mg (the magnitude may be up to 540 mg), more lenient than the software's
        // |f| < 0.3 g. Known, kept visible.
        // Bounded by what was measured (10 model falls over the 4 jumping files), so a
        // threshold or duration code that widens the gap fails (FF_THS 469 mg: 238; FF_DUR 0: 2753).
        #expect(modelFalls <= 10, "\(modelFalls): \(extraFalls)")
        withKnownIssue("LSM6DSOX free-fall per-axis test is more lenient than the software's magnitude (docs/chip-engines.md)") {
            #expect(extraFalls.isEmpty, "\(extraFalls)")
        }
    }
}
