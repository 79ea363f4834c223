import Foundation
import Testing
import TestSupport

/// `edgemotion events` with the real binary, as docs/events.md tells a user to run it: one JSON
/// object per line per event (`type`, `t_s` in the recording's time), the config's `events:`
/// section applied, and each bad input named with its exit status.
@Suite("edgemotion events command", .serialized, .ownThread)
struct EventsCommandTests {
    func edgemotion(_ arguments: [String]) throws -> (status: Int32?, output: String) {
        let p = try AgentProcess(arguments)
        let status = p.waitForExit(timeout: 30)
        return (status, p.log)
    }

    /// The JSON objects of the output (error lines, which start with "edgemotion", are skipped).
    func objects(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").filter { $0.hasPrefix("{") }.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "\($0)")
        }
    }

    /// The hand-written drop (`HandWrittenRecording.drop`): rest, 0.35 s at 0 g from t = 2.000 s,
    /// a 3-row landing at 4 g, rest; 200 Hz.
    func writeDrop(_ dir: String) throws -> String { try HandWrittenRecording.drop(in: dir) }

    @Test func aRecordedDropPrintsOneFreeFallOfItsHeightAndOneShockAsJSONLines() throws {
        let dir = try Reliability.tempDirectory("events-cli")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, out) = try edgemotion(["events", "--input", try writeDrop(dir)])
        #expect(status == 0, "\(out)")
        let events = try objects(out)
        #expect(!events.isEmpty, "\(out)")
        for e in events { #expect(e["type"] is String && e["t_s"] is NSNumber, "every line has type and t_s: \(e)") }
        let falls = events.filter { $0["type"] as? String == "free_fall" }
        #expect(falls.count == 1, "\(out)")
        let fall = try #require(falls.first)
        // Falling from t = 2.000 s to the landing at 2.350 s: 0.35 s (± one 5 ms row),
        // h = g·t²/2 = 9.80665 × 0.35² / 2 = 0.6007 m (± g·t·0.005 = 0.017 m); reported at the landing.
        let duration = try #require((fall["duration_s"] as? NSNumber)?.doubleValue)
        let height = try #require((fall["drop_height_m"] as? NSNumber)?.doubleValue)
        #expect(abs(duration - 0.35) <= 0.0051, "duration \(duration)")
        #expect(abs(height - 0.6007) <= 0.018, "height \(height)")
        let t = try #require((fall["t_s"] as? NSNumber)?.doubleValue), onset = try #require((fall["onset_s"] as? NSNumber)?.doubleValue)
        #expect(t >= 2.345 && t <= 2.40, "t_s \(t): the recording's time of the landing")
        #expect(abs(onset - 2.0) <= 0.0051, "onset_s \(onset)")
        // The landing: |f| = 4 × 9.80665 m/s² = 4 g, one impact, and not a tap (the board was not
        // resting on anything before it).
        let shocks = events.filter { $0["type"] as? String == "shock" }
        #expect(shocks.count == 1, "\(out)")
        let peak = try #require((shocks.first?["peak_g"] as? NSNumber)?.doubleValue)
        #expect(abs(peak - 4) < 0.01, "peak_g \(peak)")
        #expect(!events.contains { $0["type"] as? String == "tap" }, "\(out)")
    }

    @Test func theConfigsEventsSectionIsApplied() throws {
        let dir = try Reliability.tempDirectory("events-cli-config")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let drop = try writeDrop(dir)
        // A 0.35 s fall is shorter than free_fall_min_s 0.4 s: no free_fall; the shock stays.
        let config = dir + "/long-falls.yaml"
        try "events:\n  free_fall_min_s: 0.4\n".write(toFile: config, atomically: true, encoding: .utf8)
        let (status, out) = try edgemotion(["events", "--input", drop, "--config", config])
        #expect(status == 0, "\(out)")
        let types = try objects(out).compactMap { $0["type"] as? String }
        #expect(!types.contains("free_fall") && types.contains("shock"), "\(out)")
    }

    /// Tamper armed at a recording time, as `cmd/events arm_tamper` arms it live: the drop that
    /// starts at 2.000 s is the first motion after arming at 1 s (one `tamper`, decided within the
    /// fall); unarmed, or armed at 3 s when the board has come to rest again, there is none.
    @Test func tamperArmedAtARecordingTimeFiresOnTheNextMotion() throws {
        let dir = try Reliability.tempDirectory("events-cli-tamper")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let drop = try writeDrop(dir)
        let (status, out) = try edgemotion(["events", "--input", drop, "--arm-tamper-at", "1"])
        #expect(status == 0, "\(out)")
        let tampers = try objects(out).filter { $0["type"] as? String == "tamper" }
        #expect(tampers.count == 1, "\(out)")
        let t = (tampers.first?["t_s"] as? NSNumber)?.doubleValue ?? -1
        #expect(t >= 2.0 && t <= 2.35, "t_s \(t): during the fall")
        for extra in [[String](), ["--arm-tamper-at", "3"]] {
            let (_, o) = try edgemotion(["events", "--input", drop] + extra)
            #expect(try objects(o).allSatisfy { $0["type"] as? String != "tamper" }, "\(extra): \(o)")
        }
        let (bad, message) = try edgemotion(["events", "--input", drop, "--arm-tamper-at", "soon"])
        #expect(bad == 64 && message.contains("--arm-tamper-at: 'soon'"), "\(message)")
    }

    @Test func aScenarioPrintsItsTruthOnlyWhenAsked() throws {
        let (status, out) = try edgemotion(["events", "--scenario", "drop", "--truth"])
        #expect(status == 0, "\(out)")
        let lines = try objects(out)
        let truth = lines.filter { $0["truth"] != nil }
        #expect(truth.contains { $0["truth"] as? String == "free_fall" } && truth.allSatisfy { $0["t_s"] != nil }, "\(out)")
        #expect(lines.contains { $0["type"] as? String == "free_fall" }, "\(out)")
        let (_, plain) = try edgemotion(["events", "--scenario", "drop"])
        #expect(try objects(plain).allSatisfy { $0["truth"] == nil }, "\(plain)")
    }

    @Test func badInputIsNamedWithItsExitStatus() throws {
        let dir = try Reliability.tempDirectory("events-cli-bad")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let missing = dir + "/nowhere.csv"
        let (s1, o1) = try edgemotion(["events", "--input", missing])
        #expect(s1 == 66 && o1.contains(missing), "\(o1)")
        let bad = dir + "/bad.yaml"
        try "events:\n  thresholds:\n    door: { above_deg: 20, below_deg: 60 }\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let (s2, o2) = try edgemotion(["events", "--input", try writeDrop(dir), "--config", bad])
        #expect(s2 == 65 && o2.contains("\(bad):3:") && o2.contains("below_deg"), "\(o2)")
        let (s3, o3) = try edgemotion(["events", "--scenario", "nope"])
        #expect(s3 == 64 && o3.contains("known: door"), "\(o3)")
        let (s4, o4) = try edgemotion(["events"])
        #expect(s4 == 64 && o4.contains("--input FILE or --scenario NAME"), "\(o4)")
        let short = dir + "/one-row.csv"
        try "t_s,ax,ay,az\n0,0,0,9.8\n".write(toFile: short, atomically: true, encoding: .utf8)
        let (s5, o5) = try edgemotion(["events", "--input", short])
        #expect(s5 == 65 && o5.contains("fewer than two samples"), "\(o5)")
    }

    /// A board resting 5 s at 200 Hz with specific force `f` (m/s², the recording's axes).
    func writeResting(_ f: (Double, Double, Double), _ dir: String, name: String) throws -> String {
        var csv = "t_s,ax,ay,az,gx,gy,gz\n"
        for i in 0 ..< 1000 { csv += "\(Double(i) / 200),\(f.0),\(f.1),\(f.2),0,0,0\n" }
        let path = dir + "/" + name
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The `door` threshold's states, in order, from the output.
    func doorStates(_ output: String) throws -> [String] {
        try objects(output).filter { $0["type"] as? String == "tilt_threshold" && $0["name"] as? String == "door" }
            .compactMap { $0["state"] as? String }
    }

    func writeConfig(_ dir: String, mount: String = "") throws -> String {
        let path = dir + "/door.yaml"
        try """
        state_directory: \(dir)
        \(mount)
        events:
          thresholds:
            door: {above_deg: 20, below_deg: 10, dwell_s: 0.5, on: open, off: closed}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `--config` measures tilt from the zero pose the agent keeps (`set_level`), as the device
    /// does. The board rests tilted 30° about x: f = g·(0, sin 30°, cos 30°) = (0, 4.903325,
    /// 8.492851) m/s². From level that is 30° > 20°: the door is open. With the zero file holding
    /// that pose's up (0, 0.5, 0.8660254) the tilt is 0°: closed. `--no-zero`, or a damaged zero
    /// file (a warning naming it), measure from level again.
    @Test func theKeptZeroPoseIsTheZeroOfTilt() throws {
        let dir = try Reliability.tempDirectory("events-cli-zero")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try writeResting((0, 4.903325, 8.492851), dir, name: "tilted.csv")
        let config = try writeConfig(dir)
        let (s0, fromLevel) = try edgemotion(["events", "--input", input, "--config", config])
        #expect(try s0 == 0 && doorStates(fromLevel).first == "open", "no zero kept yet: \(fromLevel)")
        try "0.0 0.5 0.8660254\n".write(toFile: dir + "/events-zero", atomically: true, encoding: .utf8)
        let (s1, fromZero) = try edgemotion(["events", "--input", input, "--config", config])
        #expect(try s1 == 0 && !doorStates(fromZero).contains("open"), "\(fromZero)")
        let (s2, ignored) = try edgemotion(["events", "--input", input, "--config", config, "--no-zero"])
        #expect(try s2 == 0 && doorStates(ignored).first == "open", "\(ignored)")
        try "0 0 5\n".write(toFile: dir + "/events-zero", atomically: true, encoding: .utf8)
        let (s3, damaged) = try edgemotion(["events", "--input", input, "--config", config])
        #expect(try s3 == 0 && doorStates(damaged).first == "open", "\(damaged)")
        #expect(damaged.contains("warning: zero pose ignored") && damaged.contains(dir + "/events-zero"), "\(damaged)")
        let (s4, alone) = try edgemotion(["events", "--input", input, "--no-zero"])
        #expect(s4 == 64 && alone.contains("need --config"), "\(alone)")
    }

    /// `--apply-mount` rotates a chip-axes recording into board axes by the config's
    /// `source.mount` first. The chip stands on its edge on a level board, its y axis up:
    /// f_chip = (0, g, 0). The mount {x: x, y: -z, z: y} says board z = chip y (and board y =
    /// −chip z; det = +1), so in board axes f = (0, 0, g): level, the door closed. Taken as board
    /// axes (no flag, as for an export of the agent's own recording), the same rows are 90° from
    /// level: open.
    @Test func applyMountRotatesAChipAxesRecordingIntoBoardAxes() throws {
        let dir = try Reliability.tempDirectory("events-cli-mount")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = try writeResting((0, 9.80665, 0), dir, name: "on-edge.csv")
        let config = try writeConfig(dir, mount: "source: { mount: { accel_gyro: {x: x, y: -z, z: y} } }")
        let (s0, asBoard) = try edgemotion(["events", "--input", input, "--config", config])
        #expect(try s0 == 0 && doorStates(asBoard).first == "open", "\(asBoard)")
        let (s1, mounted) = try edgemotion(["events", "--input", input, "--config", config, "--apply-mount"])
        #expect(try s1 == 0 && !doorStates(mounted).contains("open"), "\(mounted)")
        // A damaged learned mount (used when accel_gyro is learned) is refused, naming the file.
        try "garbage\n".write(toFile: dir + "/edgemotion-mount.txt", atomically: true, encoding: .utf8)
        let learned = try writeConfig(dir, mount: "source: { mount: { accel_gyro: learned } }")
        let (s2, refused) = try edgemotion(["events", "--input", input, "--config", learned, "--apply-mount"])
        #expect(s2 == 65 && refused.contains(dir + "/edgemotion-mount.txt"), "\(refused)")
    }
}
