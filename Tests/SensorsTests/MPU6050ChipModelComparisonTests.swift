import Testing
import Foundation
import MotionCore
@testable import Sensors
import TestSupportPaths

/// Issue 16: the MPU-6050's motion engine against the software `motion` detector on real
/// recordings, through a behavioural model from the register map as InvenSense's driver restates
/// it (`ChipModels/MPU6050MotionModel.swift`), NOT silicon. The model is fed the bytes
/// `MPU6050.configure` wrote for the default configuration over `ScriptedMPU6050`.
@Suite("MPU-6050 data-sheet motion model against the software detector (real recordings)", .serialized,
       .enabled(if: SharedDataPath.root != nil, "../shared/data not found next to the package"))
struct MPU6050ChipModelComparisonTests {
    static func registers(rate: Double, mutate: (inout [UInt8]) -> Void = { _ in }) throws -> [UInt8] {
        try ChipModelReplay.registers(ScriptedMPU6050(), address: 0x68, mutate: mutate) {
            _ = try MPU6050(device: $0).configure(ChipModelReplay.chipSettings(rate: rate, engines: [.motion]))
        }
    }

    func run(_ path: String, mutate: (inout [UInt8]) -> Void = { _ in }) throws -> ChipModelReplay.Outcome {
        let (rows, rate) = try ChipModelReplay.load(path)
        let r = try Self.registers(rate: rate, mutate: mutate)
        let enabled = r[0x38] & 0x40 != 0   // INT_ENABLE bit 6 MOT_EN
        var model = MPU6050MotionModel(accelConfig: r[0x1C], motThr: r[0x1F], motDur: r[0x20])
        return ChipModelReplay.compare(rows, rate: rate, chipDecides: [.motion]) { time, g in
            model.update(time: time, g.x, g.y, g.z) && enabled ? .chipMotion : []
        }
    }

    @Test func dsaMotionAgreesWhileJumpingSittingAndLying() throws {
        var checked: [String: Int] = [:], missed: [String] = []
        for (file, activity) in try ChipModelReplay.dsaFiles(["jumping", "sitting", "lying_on_back"]) {
            let name = ChipModelReplay.name(file)
            let o = try run(file)
            let s = o.count(o.software, .motion), c = o.count(o.chip, .motion)
            #expect(s > 0 || c == 0, "\(name) \(activity): motion chip model \(c), software 0")
            if activity == "jumping" { #expect(c > 0, "\(name): no chip-model motion while jumping") }
            if s > 0, c == 0 { missed.append("\(name) \(s)/0") }
            checked[activity, default: 0] += 1
        }
        #expect(checked.count == 3, "\(checked)")
        // Measured (stop 29), software/model: the model misses the software's motion only on T
        // p1_a01 sitting (15/0): small movements above 31 mg off the 1 s average that never stay
        // above MOT_THR (32 mg) after the 0.63 Hz high-pass for the full 100 ms. Known, kept
        // visible (fails once it goes away) and bounded at the measured 1 file.
        #expect(missed.count <= 1, "\(missed)")
        withKnownIssue("MPU-6050 motion model misses small motions the software finds (docs/chip-engines.md)") {
            #expect(missed.isEmpty, "\(missed)")
        }
    }

    @Test func broadQuietTrialsGiveNoChipMotionWhereTheSoftwareGivesNone() throws {
        let trials = try ChipModelReplay.undisturbedTrials()
        #expect(trials.count >= 10)
        for trial in trials {
            let o = try run(trial)
            if o.count(o.software, .motion) == 0 { #expect(o.count(o.chip, .motion) == 0, "\(ChipModelReplay.name(trial))") }
        }
    }
}
