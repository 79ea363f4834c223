import Testing
import Foundation
import MotionCore
@testable import Sensors
import TestSupportPaths

/// Runs one real recording through the software detectors (the reference) and, beside them,
/// through the same detectors with the chip deciding the engines it was handed from the flags a
/// data-sheet chip model raises per sample (the agent's publishing path). The one home of what
/// the chip-model comparison suites share: the recordings (read in place from ../shared/data),
/// the bytes a driver's `configure` wrote over a scripted chip, the replay and the tap matching.
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

    /// What the agent hands a chip at `rate` Hz (±4 g, ±500 dps, data-ready on) for the `engines`
    /// given, with `MotionEventConfiguration()`'s thresholds.
    static func chipSettings(rate: Double, engines: Set<ChipEngine>) -> IMUChipSettings {
        let d = MotionEventConfiguration()
        return IMUChipSettings(rate: rate, accelRangeG: 4, gyroRangeDPS: 500, dataReadyInterrupt: true,
                               motionInterrupt: engines.contains(.motion) ? MotionInterruptSettings(d.anyMotion) : nil,
                               freeFallInterrupt: engines.contains(.freeFall) ? FreeFallInterruptSettings(d.freeFall) : nil,
                               tapInterrupt: engines.contains(.tap) ? TapInterruptSettings(d.tap) : nil,
                               orientationInterrupt: engines.contains(.orientation) ? OrientationInterruptSettings(d.orientation, lowPassHz: d.tiltCutoff) : nil)
    }

    /// The register file of `chip` after `configure` ran on a device at `address` on it, then `mutate`d
    /// (the mutation tests' hook).
    static func registers(_ chip: ScriptedFIFOChip, address: UInt16, mutate: (inout [UInt8]) -> Void,
                          configure: (I2CDevice) throws -> Void) throws -> [UInt8] {
        try configure(I2CDevice(bus: try I2CBus(number: 9, path: "scripted", adapter: chip), address: address))
        var r = chip.state.withLock { $0.registers }
        mutate(&r)
        return r
    }

    /// The default event configuration with the software deciding everything.
    static var softwareConfiguration: MotionEventConfiguration {
        var c = MotionEventConfiguration()
        c.chipMotion = false; c.chipFreeFall = false; c.chipTap = false; c.chipOrientation = false
        return c
    }

    /// `chipFlags(time s, specific force in g, chip axes)` → the chip flags of that sample; the chip
    /// decides the events of `chipDecides`. With `.orientation` among them, `orientation` events
    /// are enabled on both sides (they are off by default).
    static func compare(_ rows: [RecordingRow], rate: Double, chipDecides: Set<ChipEngine>,
                        chipFlags: (Double, Vector3) -> IMUSample.Flags) -> Outcome {
        var softwareConfig = softwareConfiguration
        if chipDecides.contains(.orientation) { softwareConfig.enabled.insert(.orientation) }
        var chipConfig = softwareConfig
        chipConfig.chipMotion = chipDecides.contains(.motion); chipConfig.chipFreeFall = chipDecides.contains(.freeFall)
        chipConfig.chipTap = chipDecides.contains(.tap); chipConfig.chipOrientation = chipDecides.contains(.orientation)
        var software = MotionEventDetectors(configuration: softwareConfig, sampleRate: rate)
        var chip = MotionEventDetectors(configuration: chipConfig, sampleRate: rate)
        var out = Outcome()
        for row in rows {
            let flags = chipFlags(row.time, row.specificForce * (1 / standardGravity))
            software.update(time: row.time, specificForce: row.specificForce, rotationRate: row.rotationRate) { out.software.append($0) }
            chip.update(time: row.time, specificForce: row.specificForce, rotationRate: row.rotationRate, chipFlags: flags) { out.chip.append($0) }
        }
        return out
    }

    /// Taps: each software tap (a `double_tap` is its second tap) against the chip model's taps.
    /// Matched: a chip tap within 0.15 s (the software's 0.1 s quiet-before plus its 0.05 s
    /// quiet-after; both decide a tap after some quiet) of the software tap.
    static func tapAgreement(_ o: Outcome) -> (software: Int, chip: Int, matched: Int) {
        let s = o.times(o.software, [.tap, .doubleTap]), c = o.times(o.chip, [.tap])
        let matched = s.filter { t in c.contains { abs($0 - t) <= 0.15 } }.count
        return (s.count, c.count, matched)
    }

    /// The BROAD undisturbed trials (paths), sorted: no taps, drops or handling beyond the motion.
    static func undisturbedTrials() throws -> [String] {
        let dir = data + "/fusion"
        return try FileManager.default.contentsOfDirectory(atPath: dir)
            .filter { $0.contains("_undisturbed_") && $0.hasSuffix(".csv.gz") }.sorted().map { dir + "/" + $0 }
    }

    /// "placement/file" of a recording path, for messages.
    static func name(_ path: String) -> String { path.split(separator: "/").suffix(2).joined(separator: "/") }

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
