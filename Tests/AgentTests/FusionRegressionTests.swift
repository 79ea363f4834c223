import Testing
import Foundation
@testable import Agent
import MotionCore
import Sensors
import TestSupportPaths

/// Where the BROAD trials are (`<repo>/../shared` or `$EDGEMOTION_SHARED`), nil without them.
private func fusionDataDirectory() -> String? {
    if let root = SharedDataPath.root { return root + "/data/fusion" }
    if let env = ProcessInfo.processInfo.environment["EDGEMOTION_SHARED"] { return env + "/data/fusion" }
    return nil
}

/// Real-data regression: BROAD development trials through `edgemotion fusion` (the command's own
/// code path, writing its CSV), scored in Swift with the formulas of ../shared/tools/fusion_eval.py:
/// `q_err = q_est ⊗ q_ref*`; total `2·acos|w|`, heading `2·atan|z/w|`, inclination
/// `2·acos√(w²+z²)`; RMSE over `movement == 1`, samples without truth skipped; 6D first removes the
/// circular-mean heading offset. Bounds sit a little above the results when they were set
/// (docs/accuracy.md), so a regression fails and an improvement passes.
@Suite("Fusion regression on BROAD trials", .serialized,
       .enabled(if: fusionDataDirectory() != nil,
                "../shared/data/fusion not found (set EDGEMOTION_SHARED to the shared directory)"))
struct FusionRegressionTests {
    static var dataDirectory: String? { fusionDataDirectory() }

    struct Scores: CustomStringConvertible {
        var total: Double, heading: Double, inclination: Double
        var description: String { "total \(total)°, heading \(heading)°, inclination \(inclination)°" }
    }

    /// Runs `edgemotion fusion` on a trial and scores its output file.
    func score(trial: String, mode: String) throws -> Scores? {
        guard let dir = Self.dataDirectory else { return nil }
        let input = "\(dir)/\(trial).csv.gz"
        let output = NSTemporaryDirectory() + "edgemotion-fusion-\(UUID().uuidString).csv"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let status = FusionCommand().run(arguments: ["--input", input, "--output", output, "--mode", mode])
        #expect(status == 0)

        // Estimates written by the command.
        let text = try String(contentsOfFile: output, encoding: .utf8)
        var lines = text.split(separator: "\n")
        #expect(lines.removeFirst() == "t_s,qw,qx,qy,qz")
        var estimates: [(Double, Quaternion)] = []
        for line in lines {
            let f = line.split(separator: ",").map { Double($0)! }
            estimates.append((f[0], Quaternion(w: f[1], x: f[2], y: f[3], z: f[4])))
        }
        // Truth and movement mask from the trial.
        let rows = try RecordingReader(path: input).readAll()
        #expect(rows.count == estimates.count)
        var pairs: [(Quaternion, Quaternion)] = []
        for (row, est) in zip(rows, estimates) where row.movement == true {
            #expect(abs(row.time - est.0) < 1e-9)
            guard let truth = row.truth else { continue }
            pairs.append((est.1.normalized, truth.normalized))
        }
        #expect(pairs.count > 10_000)
        if mode == "6d" {
            var s = 0.0, c = 0.0
            for (e, r) in pairs {
                var d = e * r.conjugate
                if d.w < 0 { d = Quaternion(w: -d.w, x: -d.x, y: -d.y, z: -d.z) }
                let psi = 2 * Double.atan2(d.z, d.w)
                s += psi.sin
                c += psi.cos
            }
            let offset = Quaternion.aboutZ(-Double.atan2(s, c))
            pairs = pairs.map { ((offset * $0.0).normalized, $0.1) }
        }
        var t2 = 0.0, h2 = 0.0, i2 = 0.0
        for (e, r) in pairs {
            let d = (e * r.conjugate).normalized
            let total = 2 * min(1, abs(d.w)).acos
            let heading = 2 * (abs(d.z / d.w)).atanValue
            let incl = 2 * min(1, (d.w * d.w + d.z * d.z).squareRoot()).acos
            t2 += total * total; h2 += heading * heading; i2 += incl * incl
        }
        let n = Double(pairs.count)
        defer { print("fusion regression \(trial) \(mode): \(Scores(total: (t2 / n).squareRoot().degrees, heading: (h2 / n).squareRoot().degrees, inclination: (i2 / n).squareRoot().degrees))") }
        return Scores(total: (t2 / n).squareRoot().degrees, heading: (h2 / n).squareRoot().degrees,
                      inclination: (i2 / n).squareRoot().degrees)
    }

    @Test func undisturbedSlowRotationStaysAtItsAccuracy() throws {
        let s = try #require(try score(trial: "02_undisturbed_slow_rotation_B", mode: "9d"))
        // When set (Dec 2026, after the heading start-up fix and the cross-validated
        // biasSigmaMotion 0.03, docs/fusion.md): 1.32 / 1.26 / 0.38 (VQF 1.38 / 1.31 / 0.43).
        // Before: 1.29 / 1.22 / 0.43; heading bound kept, inclination tightened to the new value.
        #expect(s.total < 1.45, "\(s)")
        #expect(s.heading < 1.4, "\(s)")
        #expect(s.inclination < 0.45, "\(s)")
    }

    /// The condition where the filter used to lose to VQF on unseen trials: fast rotation with
    /// breaks, undisturbed. Needs the mean heading start-up.
    @Test func undisturbedFastRotationWithBreaksBeatsVQF() throws {
        let s = try #require(try score(trial: "09_undisturbed_fast_rotation_with_breaks_B", mode: "9d"))
        // When set: 1.38 / 1.07 / 0.87 (VQF 1.49 / 1.20 / 0.87; before the start-up fix 1.43 / 1.13 / 0.87).
        #expect(s.total < 1.45, "\(s)")
        #expect(s.heading < 1.15, "\(s)")
        #expect(s.inclination < 0.92, "\(s)")
    }

    @Test func attachedMagnetTrialKeepsHeadingAndInclination() throws {
        let s9 = try #require(try score(trial: "32_disturbed_attached_magnet_1cm", mode: "9d"))
        let s6 = try #require(try score(trial: "32_disturbed_attached_magnet_1cm", mode: "6d"))
        // When set (Dec 2026): 9D 1.22 / 1.10 / 0.51, 6D 1.02 / 0.88 / 0.51 (VQF 9D 7.67 / 7.65 / 0.56).
        // Before: 9D 1.81 / 1.72 / 0.56, 6D 2.09 / 2.01 / 0.56; the lower motion-bias noise
        // (biasSigmaMotion 0.03, cross-validated) is what moved them, so the bounds follow.
        #expect(s9.total < 1.4, "9D \(s9)")
        #expect(s9.heading < 1.3, "9D \(s9)")
        #expect(s9.inclination < 0.6, "9D \(s9)")
        #expect(s6.total < 1.2, "6D \(s6)")
    }
}

private extension Double {
    var atanValue: Double { Foundation.atan(self) }
}
