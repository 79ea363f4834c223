import Foundation
import Testing
@testable import CoreMotion

/// The five iOS seed programs of issue 15 (`Examples/iOS`, compiled against `CoreMotion` with no
/// edits but the removal of UIKit) run on the simulator and print physically right values.
///
/// Truth, by hand: the `stationary` simulator holds roll 10°, pitch −5°, x 30° north of east
/// (Core Motion Euler angles; 48 µT field, 64° dip). At rest the accelerometer reads −1 g along
/// "up" seen in the device frame: device x·up = −sin 10° cos 5° = −0.1730, y·up = sin(−5°) =
/// −0.0872, z·up = cos 10° cos 5° = 0.9811, so it reads (0.173, 0.087, −0.981) g. In the
/// magnetic north-west-up frame x is 60° east of north: yaw −60°; the top (y) points 30° west of
/// north: heading 330°.
@Suite("iOS seed programs on the simulator", .serialized)
struct SeedProgramTests {
    static let built = SeedProgram(name: "ios-pull-timer").isBuilt

    @Test("Pull with a Timer: accelerometer −1 g along up, gyroscope ≈ its bias, delivered interval", .enabled(if: built))
    func pullTimer() throws {
        let (out, status) = try SeedProgram(name: "ios-pull-timer").run(["EDGEMOTION_SOURCE": "simulator:stationary"])
        #expect(status == 0, "\(out)")
        let lines = out.split(separator: "\n").filter { $0.hasPrefix("accelerometer") }
        #expect(lines.count >= 15, "\(out)")
        let x = numbers(after: "x", in: lines.joined(separator: "\n"))
        let y = numbers(after: "y", in: lines.joined(separator: "\n"))
        let z = numbers(after: "z", in: lines.joined(separator: "\n"))
        for (v, truth) in [(x, 0.173), (y, 0.087), (z, -0.981)] {
            #expect(!v.isEmpty && v.allSatisfy { abs($0 - truth) < 0.03 }, "\(v) vs \(truth)")
        }
        // Raw gyroscope of a device at rest: the simulator's bias (0.5, −0.3, 0.2) °/s = (0.0087, −0.0052, 0.0035) rad/s.
        let gx = numbers(after: "x", in: out.split(separator: "\n").filter { $0.hasPrefix("gyro") }.joined(separator: "\n"))
        #expect(!gx.isEmpty && gx.allSatisfy { abs($0 - 0.0087) < 0.02 }, "\(gx)")
        // 1/50 s asked of a 200 Hz source: one sample in 4, 0.02 s delivered.
        #expect(numbers(after: "interval", in: out) == [0.02])
        // CMLogItem.timestamp is seconds since boot: close to this machine's uptime.
        let t = numbers(after: "t", in: out)
        let uptime = ProcessInfo.processInfo.systemUptime
        #expect(t.allSatisfy { $0 > 0 && $0 <= uptime + 1 && $0 > uptime - 60 }, "timestamps \(t.prefix(3)) uptime \(uptime)")
    }

    @Test("Pull with a Timer and no IMU: every is…Available is false",
          .enabled(if: built), .enabled(if: SystemMotion.probeIIO() == nil, "this machine has an IIO accelerometer"))
    func noSource() throws {
        let (out, status) = try SeedProgram(name: "ios-pull-timer").run([:])
        #expect(status == 2)
        #expect(out.contains("accelerometer not available"))
    }

    @Test("Push handlers on an OperationQueue: |a| ≈ 1 g at rest, 48 µT field", .enabled(if: built))
    func pushHandlers() throws {
        let (out, status) = try SeedProgram(name: "ios-push-handlers").run(["EDGEMOTION_SOURCE": "simulator:stationary"])
        #expect(status == 0, "\(out)")
        let norms = numbers(after: "|a|", in: out)
        #expect(norms.count >= 50, "2 s at 50 Hz: \(norms.count)")
        #expect(norms.allSatisfy { abs($0 - 1) < 0.03 })
        let field = numbers(after: "|B|", in: out)
        #expect(!field.isEmpty && field.allSatisfy { abs($0 - 48) < 2 }, "\(field)")
        #expect(out.contains("active true true"))
        #expect(out.contains("stopped: active false false"))
    }

    @Test("Device motion in a north frame: true north reported unavailable once, then yaw −60°, heading 330°", .enabled(if: built))
    func northFrame() throws {
        let (out, status) = try SeedProgram(name: "ios-north-frame").run(["EDGEMOTION_SOURCE": "simulator:stationary"])
        #expect(status == 0, "\(out)")
        let errors = out.split(separator: "\n").filter { $0.hasPrefix("error") }
        #expect(errors == ["error: true north not available (code 102), using magnetic north"], "\(errors)")
        let rolls = numbers(after: "roll", in: out), pitches = numbers(after: "pitch", in: out)
        let yaws = numbers(after: "yaw", in: out), headings = numbers(after: "heading", in: out)
        #expect(rolls.count == 60 && headings.count == 60, "\(out)")
        // After the first second the filter has converged.
        for i in 20..<min(60, rolls.count) {
            #expect(abs(rolls[i] - 10) < 1.5 && abs(pitches[i] + 5) < 1.5, "roll \(rolls[i]) pitch \(pitches[i])")
            #expect(angleDifference(yaws[i], -60) < 3, "yaw \(yaws[i])")
            #expect(angleDifference(headings[i], 330) < 3, "heading \(headings[i])")
        }
        let gz = numbers(after: "gravity", in: out)
        #expect(gz.allSatisfy { abs($0 - 0.173) < 0.03 }, "gravity x \(gz.suffix(3))")
        // Relative to itself 20 updates earlier, at rest: no turn.
        let relative = numbers(after: "relative", in: out.replacingOccurrences(of: "relative yaw", with: "relative"))
        #expect(relative.count == 1 && angleDifference(relative[0], 0) < 1, "\(relative)")
        // The frame actually used, kept after the stop.
        #expect(out.contains("frame after stop: xMagneticNorthZVertical"))
    }

    @Test("Device motion in a north frame inside a magnetic shield: CMErrorDeviceRequiresMovement once, no heading", .enabled(if: built))
    func northFrameNeedsMovement() throws {
        let (out, status) = try SeedProgram(name: "ios-north-frame").run(["EDGEMOTION_SOURCE": "simulator:shielded"])
        #expect(status == 0, "\(out)")
        let errors = out.split(separator: "\n").filter { $0.hasPrefix("error") }
        #expect(errors.filter { $0.contains("code 101") } == ["error: device requires movement (code 101)"], "\(errors)")
        let headings = numbers(after: "heading", in: out)
        #expect(headings.count == 60 && headings.allSatisfy { $0 < 0 }, "\(headings.suffix(3))")
        // The tilt is still right: roll 10°, pitch −5° from gravity alone.
        let rolls = numbers(after: "roll", in: out), pitches = numbers(after: "pitch", in: out)
        #expect(abs((rolls.last ?? 0) - 10) < 1.5 && abs((pitches.last ?? 0) + 5) < 1.5)
    }

    @Test("Activity updates and history while walking", .enabled(if: built))
    func activity() throws {
        let (out, status) = try SeedProgram(name: "ios-activity").run(["EDGEMOTION_SOURCE": "simulator:walking", "SEED_SECONDS": "14"])
        #expect(status == 0, "\(out)")
        let live = out.split(separator: "\n").filter { $0.hasPrefix("activity ") }
        #expect(live.contains { $0.contains("walking") }, "\(out)")
        #expect(numbers(after: "history", in: out).first.map { $0 >= 1 } == true, "\(out)")
        #expect(out.contains("  history walking"), "\(out)")
        // startDate is a UTC Date of today, not seconds since boot.
        let year = Calendar(identifier: .gregorian).component(.year, from: Date())
        #expect(live.allSatisfy { $0.contains("since \(year)-") }, "\(live)")
    }

    @Test("CMSensorRecorder at 50 Hz and CMPedometer steps while walking", .enabled(if: built))
    func recorderAndPedometer() throws {
        let directory = NSTemporaryDirectory() + "coremotion-seed-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (out, status) = try SeedProgram(name: "ios-recorder-pedometer").run(
            ["EDGEMOTION_SOURCE": "simulator:walking", "SEED_SECONDS": "14", "EDGEMOTION_SENSOR_RECORDER_DIRECTORY": directory])
        #expect(status == 0, "\(out)")
        let count = numbers(after: "recorded", in: out).first ?? 0
        // 12 s recorded at 50 Hz; the last block (≤ 4 s) may still be in memory when queried.
        #expect(count >= 50 * 7 && count <= 50 * 12 + 5, "\(out)")
        let rate = numbers(after: "at", in: out).first ?? 0
        #expect(abs(rate - 50) < 1, "\(out)")
        // Walking at about 2 steps a second for 14 s.
        let steps = numbers(after: "steps", in: out)
        #expect((steps.last ?? 0) >= 10 && (steps.last ?? 0) <= 40, "\(out)")
        #expect(FileManager.default.fileExists(atPath: directory), "recordings are kept on disk")
    }
}
