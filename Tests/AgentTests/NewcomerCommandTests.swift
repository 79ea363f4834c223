import Foundation
import Testing
import TestSupport

/// What a newcomer meets first, with the real binary: commands say what their defaults mean
/// before long work, `check-config` finds what `run` would fail on, `probe` ends with a next step.
@Suite("Newcomer commands", .serialized, .ownThread)
struct NewcomerCommandTests {
    func edgemotion(_ arguments: [String], timeout: Double = 30) throws -> (Int32?, String) {
        let p = try AgentProcess(arguments)
        let status = p.waitForExit(timeout: timeout)
        return (status, p.log)
    }

    @Test func checkConfigFindsAMissingReplayFileAndLoopOnAnEMR() throws {
        let dir = try Reliability.tempDirectory("newcomer-check")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let missing = dir + "/missing.yaml"
        try "source: { type: replay, replay: { file: nowhere.csv } }\n".write(toFile: missing, atomically: true, encoding: .utf8)
        let (status, out) = try edgemotion(["check-config", missing])
        #expect(status == 1, "\(out)")
        #expect(out.contains("\(missing): source.replay.file: 'nowhere.csv' does not exist"), "\(out)")
        #expect(!out.contains("OK"), "\(out)")

        try "t_s,gx,gy,gz,ax,ay,az\n0,0,0,0,0,0,9.8\n0.01,0,0,0,0,0,9.8\n".write(toFile: dir + "/here.csv", atomically: true, encoding: .utf8)
        let present = dir + "/present.yaml"
        try "source: { type: replay, replay: { file: here.csv } }\n".write(toFile: present, atomically: true, encoding: .utf8)
        let (okStatus, okOut) = try edgemotion(["check-config", present])
        #expect(okStatus == 0 && okOut.contains("OK"), "relative to the config file's directory: \(okOut)")

        try Data().write(to: URL(fileURLWithPath: dir + "/r.emr"))
        let looping = dir + "/loop.yaml"
        try "source: { type: replay, replay: { file: r.emr, loop: true } }\n".write(toFile: looping, atomically: true, encoding: .utf8)
        let (loopStatus, loopOut) = try edgemotion(["check-config", looping])
        #expect(loopStatus == 1 && loopOut.contains("source.replay.loop: looping works for CSV recordings only"), "\(loopOut)")
        let (replayStatus, replayOut) = try edgemotion(["replay", dir + "/r.emr", "--loop"])
        #expect(replayStatus == 64 && replayOut.contains("--loop works for CSV recordings only"), "\(replayOut)")
    }

    @Test func recordAndExportSayWhatTheirDefaultsMeanBeforeStarting() throws {
        let dir = try Reliability.tempDirectory("newcomer-record")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/c.yaml"
        try "state_directory: \(dir)/state\n".write(toFile: config, atomically: true, encoding: .utf8)
        let p = try AgentProcess(["record", "--config", config])
        usleep(1_500_000)
        p.signal(SIGINT)
        #expect(p.waitForExit(timeout: 10) == 0, "\(p.log)")
        #expect(p.log.contains("into \(dir)/state/recordings (the recorder's directory: no --output given) until Ctrl-C or SIGTERM (no --duration given)"), "\(p.log)")

        let (status, out) = try edgemotion(["recordings", "export", "--config", config, "--output", dir + "/all.csv"])
        #expect(status == 0, "\(out)")
        #expect(out.contains("exporting all samples of every recording in \(dir)/state/recordings (1 file(s)) to \(dir)/all.csv; --from/--to select a time range"), "\(out)")
        // Not a terminal (the log file): no progress line.
        #expect(!out.contains("\r") && !out.contains("\u{1B}[K"), "\(out)")

        // On a terminal (a pseudo-terminal from script(1)): one updating progress line.
        let p2 = Process()
        p2.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        p2.arguments = ["-qec", "'\(AgentProcess.executable)' recordings export --config '\(config)' --output '\(dir)/tty.csv'", "/dev/null"]
        let pipe = Pipe()
        p2.standardOutput = pipe
        try p2.run()
        let tty = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p2.waitUntilExit()
        #expect(p2.terminationStatus == 0, "\(tty)")
        #expect(tty.contains("\r\u{1B}[Kexport: 0 % (0 of 1 files, "), "\(tty.debugDescription)")
    }

    @Test func probeEndsWithASummaryAndANextStep() throws {
        let (status, out) = try edgemotion(["probe", "--iio-uri", "ip:127.0.0.1:1", "--no-i2c"])
        #expect(status == 0, "\(out)")
        #expect(!out.contains("::"), "no stray colon: \(out)")
        #expect(out.contains("IIO context 'ip:127.0.0.1:1': not found"), "\(out)")
        #expect(out.contains("summary: 0 IIO motion device(s)"), "\(out)")
        #expect(out.contains("no IMU found: try `source.type: simulator`") && out.contains("docs/hardware.md"), "\(out)")
    }
}
