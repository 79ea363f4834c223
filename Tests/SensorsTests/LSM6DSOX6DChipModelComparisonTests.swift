import Testing
import Foundation
import MotionCore
@testable import Sensors
import TestSupportPaths

/// Issue 16: the LSM6DSOX's 6D orientation engine against the software `orientation` detector on
/// real recordings, through a behavioural model written from ST's AN5272 and DS13092
/// (`ChipModels/LSM6DSOX6DModel.swift`, paraphrased from memory of the documents), NOT silicon.
/// The model is fed the bytes `LSM6DSx.configure` wrote over `ScriptedLSM6DSx` with every engine
/// handed over (`LSM6DSOXRegisterFile`; `events.orientation_deg` 60°); its D6D_SRC bytes go
/// through the driver's decoder (`LSM6DSx.decodeEventSources`) and `MotionEventDetectors` with the
/// chip deciding `orientation` (`ChipOrientationGate`, the software's 0.5 s dwell), beside the
/// software detector (2 Hz low-pass, same dwell). `orientation` is enabled on both sides. The
/// recordings are on the sensor axes, so both see the chip's axes (the identity mount the agent asks).
@Suite("LSM6DSOX data-sheet 6D model against the software orientation detector (real recordings)", .serialized,
       .enabled(if: SharedDataPath.root != nil, "../shared/data not found next to the package"))
struct LSM6DSOX6DChipModelComparisonTests {
    func run(_ path: String, mutate: (inout [UInt8]) -> Void = { _ in }) throws -> ChipModelReplay.Outcome {
        let (rows, rate) = try ChipModelReplay.load(path)
        let r = try LSM6DSOXRegisterFile(rate: rate, engines: [.motion, .freeFall, .tap, .orientation], mutate: mutate)
        var sixD = LSM6DSOX6DModel(tapThs6D: r[0x59], ctrl8Xl: r[0x17], odr: r.odr)
        let routed = r.routed
        return ChipModelReplay.compare(rows, rate: rate, chipDecides: [.orientation]) { time, g in
            LSM6DSx.decodeEventSources(wakeUpSource: 0, tapSource: 0, d6dSource: sixD.update(time: time, g.x, g.y, g.z), enabled: routed)
        }
    }

    static func faces(_ e: [MotionEvent]) -> [DeviceFace] { e.filter { $0.type == .orientation }.map(\.face) }

    /// Events of `a` with an event of the same face in `b` within 0.5 s (the dwell: the software's
    /// 2 Hz low-pass lags by ~0.1 s, the chip's LPF2 near it as much; both then wait the dwell).
    static func matched(_ a: [MotionEvent], in b: [MotionEvent]) -> Int {
        let bo = b.filter { $0.type == .orientation }
        return a.filter { e in e.type == .orientation && bo.contains { $0.face == e.face && abs($0.time - e.time) <= 0.5 } }.count
    }

    @Test func theModelReadsTheThresholdAndFilterWorkedByHand() throws {
        // events.orientation_deg 60 → SIXD_THS 2: TAP_THS_6D 2 << 5 | TAP_THS_Z 16 = 0x50; an axis
        // is high above sin 60° = 0.8660 g. CTRL8_XL 0xA1: LOW_PASS_ON_6D, HPCF_XL 5: LPF2 at
        // ODR/200, 416/200 = 2.08 Hz for BROAD (nearest the software's 2 Hz); at reset (HPCF_XL 0,
        // 0x01) ODR/4: 104 Hz, 26/4 = 6.5 Hz for dsa, where the driver now writes 0x21 (26/10 =
        // 2.6 Hz). MD1_CFG routes INT1_6D (bit 2).
        let r = try LSM6DSOXRegisterFile(rate: 286, engines: [.orientation])
        #expect(r[0x59] & 0x60 == 0x40 && r[0x17] == 0xA1 && r.routed.contains(.chipOrientation))
        let m = LSM6DSOX6DModel(tapThs6D: r[0x59], ctrl8Xl: r[0x17], odr: r.odr)
        #expect(abs(m.level - 0.8660254) < 1e-6 && m.cutoffHz == 416.0 / 200 && !m.ignoresZ)
        #expect(LSM6DSOX6DModel(tapThs6D: 0x40, ctrl8Xl: 0x01, odr: 26).cutoffHz == 6.5)
        #expect(LSM6DSOX6DModel(tapThs6D: 0x40, ctrl8Xl: 0x21, odr: 26).cutoffHz == 2.6)
        // Without the low-pass (CTRL8_XL 0) the byte per sample, by hand: flat (0, 0, 1) → ZH 0x20
        // with D6D_IA 0x40 (a change from nothing) = 0x60; again → 0x20 (no change); (0, 0.87, 0.49):
        // y 0.87 > 0.866 → YH 0x08 | 0x40 = 0x48; (0, 0.7, 0.7): no axis past 0.866 → 0x40 (a
        // change, to no position); (−0.9, 0, 0.3) → XL 0x01 | 0x40 = 0x41.
        var raw = LSM6DSOX6DModel(tapThs6D: r[0x59], ctrl8Xl: 0, odr: r.odr)
        let samples: [(Double, Double, Double)] = [(0, 0, 1), (0, 0, 1), (0, 0.87, 0.49), (0, 0.7, 0.7), (-0.9, 0, 0.3)]
        let bytes = samples.enumerated().map { raw.update(time: Double($0.offset) / 416, $0.element.0, $0.element.1, $0.element.2) }
        #expect(bytes == [0x60, 0x20, 0x48, 0x40, 0x41])
        // Through the driver's decoder: 0x48 → portrait, 0x41 → landscape_right, 0x20 → nothing.
        #expect(LSM6DSx.decodeEventSources(wakeUpSource: 0, tapSource: 0, d6dSource: 0x48, enabled: .chipOrientation).chipFace == .portrait)
        #expect(LSM6DSx.decodeEventSources(wakeUpSource: 0, tapSource: 0, d6dSource: 0x41, enabled: .chipOrientation).chipFace == .landscapeRight)
        #expect(LSM6DSx.decodeEventSources(wakeUpSource: 0, tapSource: 0, d6dSource: 0x20, enabled: .chipOrientation).chipFace == nil)
    }

    @Test func broadRotationsGiveOnlyTheSoftwaresFacesAndHalfOfThem() throws {
        let trials = try ChipModelReplay.undisturbedTrials() + [ChipModelReplay.data + "/fusion/24_disturbed_tapping_A.csv.gz"]
        #expect(trials.count >= 11)
        var software = 0, chip = 0, chipMatched = 0, softwareMatched = 0, detail: [String] = []
        for trial in trials {
            let o = try run(trial)
            let s = Self.faces(o.software).count, c = Self.faces(o.chip).count
            let cm = Self.matched(o.chip, in: o.software), sm = Self.matched(o.software, in: o.chip)
            software += s; chip += c; chipMatched += cm; softwareMatched += sm
            if cm < c || sm < s { detail.append("\(ChipModelReplay.name(trial)) software \(s) model \(c) matched \(cm)/\(sm)") }
            #expect(Self.faces(o.chip).first == Self.faces(o.software).first, "\(ChipModelReplay.name(trial)): first face")
        }
        // Measured (stop 30; matching window set after a first probe run, not before): software
        // 180 changes, model 81; 79 model changes matched by a software change of the same face
        // within 0.5 s (the two others: 02 slow rotation and 24 tapping, one each), 79 of the
        // software's matched. The model never invents a face: it misses about half the
        // software's changes, all in the rotation trials (01: 21 of 58, 02: 27 of 41, 04: 16 of
        // 35, 06: 1 of 5) and 24 (8 of 35). With LPF2 at ODR/4 (104 Hz) the engine sees the
        // hand's jitter: at a cone's edge D6D_SRC flickers between the face and no position, each
        // report restarting the dwell, so a face visited for a second or two never holds 0.5 s
        // without a report. Stop 33: the driver writes HPCF_XL for an LPF2 cut-off nearest the
        // software's 2 Hz (ODR/200 = 2.08 Hz here): 144 of the software's 180 matched, the model's
        // extra changes still ≤ 2.
        #expect(chip - chipMatched <= 2, "\(detail)")
        #expect(softwareMatched >= 144 && chip >= 144, "software \(software) model \(chip) matched \(softwareMatched): \(detail)")
        withKnownIssue("LSM6DSOX 6D model misses short face visits (docs/chip-engines.md)") {
            #expect(softwareMatched == software, "software \(software) model \(chip) matched \(softwareMatched): \(detail)")
        }
    }

    @Test func stillTrialsAndDsaGiveTheSameFaces() throws {
        // Measured (stop 30): where the board does not turn (BROAD 07 and 09 rotate about the
        // vertical, translations, 27 vibration) and in 20 dsa files (4 each of sitting, standing,
        // lying on back, walking, jumping; placements torso and right leg), the same faces in the
        // same order from both (one or none each). Onsets differ by up to 4.5 s while jumping (the
        // landings' jolts keep restarting the chip's dwell).
        var files = try ChipModelReplay.undisturbedTrials().filter { !$0.contains("_slow_rotation") && !$0.contains("06_") }
        files += [ChipModelReplay.data + "/fusion/27_disturbed_phone_vibration_B.csv.gz"]
        files += try ChipModelReplay.dsaFiles(["sitting", "standing", "lying_on_back", "walking_in_parking_lot", "jumping"]).map(\.0)
        #expect(files.count >= 25)
        for file in files {
            let o = try run(file)
            #expect(Self.faces(o.chip) == Self.faces(o.software), "\(ChipModelReplay.name(file))")
        }
    }
}
