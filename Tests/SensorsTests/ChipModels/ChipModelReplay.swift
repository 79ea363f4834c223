import Testing
import Foundation
import MotionCore
@testable import Sensors
import TestSupportPaths

/// Runs one real recording through the software detectors (the reference) and, beside them,
/// through the same detectors with the chip deciding `motion`, `free_fall` and `tap` from the
/// flags a data-sheet chip model raises per sample (the agent's publishing path). Shared by the
/// chip-model comparison suites; data read in place from ../shared/data.
enum ChipModelReplay {
    static var data: String { (SharedDataPath.root ?? "") + "/data" }

    struct Outcome {
        var software: [MotionEvent] = []
        var chip: [MotionEvent] = []
        func times(_ e: [MotionEvent], _ types: Set<MotionEventType>) -> [Double] { e.filter { types.contains($0.type) }.map(\.time) }
        func count(_ e: [MotionEvent], _ t: MotionEventType) -> Int { e.filter { $0.type == t }.count }
    }

    /// The rows of `path` and their mean rate, Hz.
    static func load(_ path: String) throws -> (rows: [RecordingRow], rate: Double) {
        let rows = try RecordingReader(path: path).readAll()
        let first = try #require(rows.first), last = try #require(rows.last)
        return (rows, Double(rows.count - 1) / (last.time - first.time))
    }

    /// The default event configuration with the software deciding everything.
    static var softwareConfiguration: MotionEventConfiguration {
        var c = MotionEventConfiguration()
        c.chipMotion = false; c.chipFreeFall = false; c.chipTap = false; c.chipOrientation = false
        return c
    }

    /// `chipFlags(time s, specific force in g, chip axes)` → the chip flags of that sample.
    static func compare(_ rows: [RecordingRow], rate: Double, chipDecides: (motion: Bool, freeFall: Bool, tap: Bool),
                        chipFlags: (Double, Vector3) -> IMUSample.Flags) -> Outcome {
        var chipConfig = softwareConfiguration
        chipConfig.chipMotion = chipDecides.motion; chipConfig.chipFreeFall = chipDecides.freeFall; chipConfig.chipTap = chipDecides.tap
        var software = MotionEventDetectors(configuration: softwareConfiguration, sampleRate: rate)
        var chip = MotionEventDetectors(configuration: chipConfig, sampleRate: rate)
        var out = Outcome()
        for row in rows {
            let flags = chipFlags(row.time, row.specificForce * (1 / standardGravity))
            software.update(time: row.time, specificForce: row.specificForce, rotationRate: row.rotationRate) { out.software.append($0) }
            chip.update(time: row.time, specificForce: row.specificForce, rotationRate: row.rotationRate, chipFlags: flags) { out.chip.append($0) }
        }
        return out
    }

    /// The dsa files of `activities` from its manifest, at most `perActivity` each: (file, activity).
    static func dsaFiles(_ activities: Set<String>, perActivity: Int = 4) throws -> [(String, String)] {
        let dir = data + "/activity/dsa"
        let manifest = try String(contentsOfFile: dir + "/manifest.tsv", encoding: .utf8)
        var taken: [String: Int] = [:], out: [(String, String)] = []
        for line in manifest.split(whereSeparator: \.isNewline).dropFirst() {   // CRLF: "\r\n" is one Character
            let f = line.split(separator: "\t").map(String.init)
            guard f.count > 3, activities.contains(f[3]), (taken[f[3]] ?? 0) < perActivity else { continue }
            taken[f[3], default: 0] += 1
            out.append((dir + "/" + f[0], f[3]))
        }
        return out
    }
}
