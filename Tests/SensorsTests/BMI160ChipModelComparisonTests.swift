import Testing
import Foundation
import MotionCore
@testable import Sensors
import TestSupportPaths

/// Issue 16: the BMI160's own engines against the software detectors they stand in for, on real
/// recordings. There is no BMI160 board here: the chip side is a behavioural model of each engine
/// written from the data sheet (`ChipModels/BMI160*Model.swift`, BST-BMI160-DS000-07 §2.6.1
/// any-motion, §2.6.4 tap, §2.6.7 low-g), NOT silicon. Each model is fed the register bytes the
/// driver's `configure` actually wrote for the default event configuration (over `ScriptedBMI160`),
/// never the driver's settings or formulas, so a wrong threshold or duration code shows as
/// disagreement. The recordings' own rate stands in for the ODR the driver picked (BROAD
/// ~286 Hz → 400 Hz ODR, dsa 25 Hz → 25 Hz). The model's flags go through `MotionEventDetectors`
/// with the chip deciding (the agent's publishing path); the reference is the same detectors
/// with the software deciding. Data read in place from ../shared/data.
@Suite("BMI160 data-sheet engine models against the software detectors (real recordings)", .serialized,
       .enabled(if: SharedDataPath.root != nil, "../shared/data not found next to the package"))
struct BMI160ChipModelComparisonTests {
    typealias Outcome = ChipModelReplay.Outcome
    static var data: String { ChipModelReplay.data }

    /// The bytes `BMI160.configure` writes for `MotionEventConfiguration()`'s thresholds at `rate`
    /// (±4 g, data-ready on), as the agent hands them over (`events.chip_engines` all).
    static func registers(rate: Double, mutate: (inout [UInt8]) -> Void = { _ in }) throws -> [UInt8] {
        try ChipModelReplay.registers(ScriptedBMI160(), address: 0x69, mutate: mutate) {
            _ = try BMI160(device: $0).configure(ChipModelReplay.chipSettings(rate: rate, engines: [.motion, .freeFall, .tap]))
        }
    }

    func run(_ path: String, mutate: (inout [UInt8]) -> Void = { _ in }) throws -> Outcome {
        let (rows, rate) = try ChipModelReplay.load(path)
        let r = try Self.registers(rate: rate, mutate: mutate)
        // ACC_RANGE 0x41 (data sheet register description): 0x03 ±2 g, 0x05 ±4 g, 0x08 ±8 g, 0x0C ±16 g.
        let fullScale = try #require([0x03: 2.0, 0x05: 4.0, 0x08: 8.0, 0x0C: 16.0][Int(r[0x41])])
        // Engines the driver enabled (INT_EN_0 0x50 anymotion 0x07, taps 0x30; INT_EN_1 0x51 low_g 0x08).
        let en0 = r[0x50], en1 = r[0x51]
        var anyMotion = BMI160AnyMotionModel(intMotion0: r[0x5F], intMotion1: r[0x60], fullScaleG: fullScale)
        var lowG = BMI160LowGModel(intLowHigh0: r[0x5A], intLowHigh1: r[0x5B], intLowHigh2: r[0x5C])
        var tap = BMI160TapModel(intTap0: r[0x63], intTap1: r[0x64], fullScaleG: fullScale)
        return ChipModelReplay.compare(rows, rate: rate, chipDecides: [.motion, .freeFall, .tap]) { time, g in
            var flags = IMUSample.Flags()
            if anyMotion.update(g.x, g.y, g.z), en0 & 0x07 != 0 { flags.insert(.chipMotion) }
            if lowG.update(time: time, g.x, g.y, g.z), en1 & 0x08 != 0 { flags.insert(.chipFreeFall) }
            switch tap.update(time: time, g.x, g.y, g.z) {
            case .single where en0 & 0x20 != 0: flags.insert(.chipTap)
            case .double where en0 & 0x10 != 0: flags.formUnion([.chipTap, .chipDoubleTap])
            default: break
            }
            return flags
        }
    }

    @Test func broadTrial24TapsAgree() throws {
        let o = try run(Self.data + "/fusion/24_disturbed_tapping_A.csv.gz")
        let a = ChipModelReplay.tapAgreement(o)
        // Tolerance fixed before the first run: counts within 30 % of each other and at least
        // 70 % of the software's taps matched by a chip-model tap.
        #expect(a.software >= 11, "\(a)")
        #expect(abs(a.chip - a.software) <= max(3, a.software * 3 / 10), "\(a)")
        // Measured (stop 29): software 16, chip model 18, matched 12; stop 33 (the software's quiet
        // judged where a loud run begins): software 22.
        #expect(a.matched * 10 >= a.software * 7, "\(a)")
    }

    @Test func broadQuietTrialsGiveNoChipEventWhereTheSoftwareGivesNone() throws {
        let trials = try ChipModelReplay.undisturbedTrials()
        #expect(trials.count >= 10)
        var extraTaps: [String] = []
        for trial in trials {
            let o = try run(trial)
            for type in [MotionEventType.motion, .freeFall] where o.count(o.software, type) == 0 {
                #expect(o.count(o.chip, type) == 0, "\(trial): \(type) chip \(o.count(o.chip, type)), software 0")
            }
            if o.count(o.software, .tap) + o.count(o.software, .doubleTap) == 0, o.count(o.chip, .tap) > 0 {
                extraTaps.append("\(ChipModelReplay.name(trial)): \(o.count(o.chip, .tap))")
            }
        }
        // Measured (stop 29): the model taps once in each of 04_undisturbed_slow_rotation_with_breaks_A
        // and 09_undisturbed_fast_rotation_with_breaks_B, where the software finds none: the data
        // sheet's engine has only slope, shock and quiet; the software detector also rejects a
        // peak without 0.1 s of quiet before it or while the device is handled (its support
        // test). A known disagreement of the engines, kept visible: this fails once it goes away.
        #expect(extraTaps.count <= 2, "\(extraTaps)")   // bounded by what was measured
        withKnownIssue("BMI160 tap model taps on handling where the software detector does not (docs/chip-engines.md)") {
            #expect(extraTaps.isEmpty, "\(extraTaps)")
        }
    }

    @Test func dsaMotionAndFreeFallAgreeWhileJumpingSittingAndLying() throws {
        var checked: [String: Int] = [:], missedFalls: [String] = []
        for (file, activity) in try ChipModelReplay.dsaFiles(["jumping", "sitting", "lying_on_back"]) {
            let name = ChipModelReplay.name(file)
            let o = try run(file)
            // Same decision: both none, or both some.
            let sm = o.count(o.software, .motion), cm = o.count(o.chip, .motion)
            #expect((sm == 0) == (cm == 0), "\(name) \(activity): motion software \(sm), chip model \(cm)")
            let sf = o.count(o.software, .freeFall), cf = o.count(o.chip, .freeFall)
            #expect(cf <= sf, "\(name) \(activity): free_fall software \(sf), chip model \(cf)")
            if sf > 0, cf == 0 { missedFalls.append(name) }
            checked[activity, default: 0] += 1
        }
        #expect(checked.count == 3, "\(checked)")
        // Measured (stop 29): on RL_right_leg/p1_a18_jumping the software finds one free fall
        // (|f| < 0.3 g for 0.2 s in a jump) and the model none: sum mode |x|+|y|+|z| ≥ |f| (up
        // to √3 ×), so the chip's low-g is stricter than the software's magnitude test for the
        // same 0.3 g. Known, kept visible (fails once it goes away); the model never finds a
        // fall the software does not (above).
        #expect(missedFalls.count <= 1, "\(missedFalls)")   // bounded by what was measured
        withKnownIssue("BMI160 low-g sum mode is stricter than the software's magnitude (docs/chip-engines.md)") {
            #expect(missedFalls.isEmpty, "\(missedFalls)")
        }
    }
}
