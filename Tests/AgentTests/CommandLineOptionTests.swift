import Foundation
import Testing
import TestSupport

/// The offline commands (`fusion`, `calibrate`) as users type them: every mistake is a clear
/// message and exit status 64 (usage) or 66 (unreadable input), never a crash or a silent default.
@Suite("Command-line options of the offline commands", .ownThread)
struct CommandLineOptionTests {
    /// Runs `edgemotion` to completion; returns its exit status and everything it printed.
    func run(_ arguments: [String]) throws -> (Int32?, String) {
        let p = try AgentProcess(arguments)
        let status = p.waitForExit(timeout: 60)
        return (status, p.log)
    }

    @Test func anUnknownFusionOptionIsNamedWithTheUsage() throws {
        let (status, out) = try run(["fusion", "--input", "x.csv", "--output", "-", "--bogus", "1"])
        #expect(status == 64)
        #expect(out.contains("unknown option '--bogus'") && out.contains("usage: edgemotion fusion"), "\(out)")
    }

    @Test func fusionRefusesAMissingValueAndABadRepeat() throws {
        let (missing, out1) = try run(["fusion", "--input", "x.csv", "--output"])
        #expect(missing == 64 && out1.contains("--output needs a value"), "\(out1)")
        let (badRepeat, out2) = try run(["fusion", "--input", "x.csv", "--output", "-", "--repeat", "zero"])
        #expect(badRepeat == 64 && out2.contains("--repeat needs a positive whole number"), "\(out2)")
    }

    @Test func calibrateNamesWhatIsMissingOrWrong() throws {
        let (noInput, out1) = try run(["calibrate", "gyro"])
        #expect(noInput == 64 && out1.contains("--input RECORDING is required"), "\(out1)")
        let (badDuration, out2) = try run(["calibrate", "gyro", "--input", "x.csv", "--duration", "-3"])
        #expect(badDuration == 64 && out2.contains("--duration needs a positive duration"), "\(out2)")
        // The older names still work, are named as typed, and cannot be mixed with the new ones.
        let (badSeconds, out4) = try run(["calibrate", "gyro", "--input", "x.csv", "--seconds", "-3"])
        #expect(badSeconds == 64 && out4.contains("--seconds needs a positive duration"), "\(out4)")
        let (both, out5) = try run(["calibrate", "gyro", "--input", "x.csv", "--output", "a", "--file", "b"])
        #expect(both == 64 && out5.contains("give --output or its older name --file, not both"), "\(out5)")
        let (stray, out3) = try run(["calibrate", "gyro", "--input", "x.csv", "extra"])
        #expect(stray == 64 && out3.contains("unexpected argument 'extra'"), "\(out3)")
    }

    @Test(.enabled(if: SharedData.path("data/fusion/01_undisturbed_slow_rotation_A.csv.gz") != nil, "shared data folder ../shared is absent (never copied into the repository)"))
    func aCalibrationFileThatExistsButCannotBeReadIsReportedNotOverwritten() throws {
        let trial = try #require(SharedData.path("data/fusion/01_undisturbed_slow_rotation_A.csv.gz"))
        // A directory in the file's place: refused as not a regular file, without reading it — even for root.
        let dir = NSTemporaryDirectory() + "edgemotion-cal-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, out) = try run(["calibrate", "gyro", "--input", trial, "--seconds", "5", "--file", dir])
        #expect(status == 66 && out.contains("cannot read \(dir): not a regular file"), "\(out)")

        // A missing file is simply a new one; --dry-run writes nothing.
        let fresh = dir + "/calibration.txt"
        let (ok, out2) = try run(["calibrate", "gyro", "--input", trial, "--seconds", "5", "--file", fresh, "--dry-run"])
        #expect(ok == 0 && out2.contains("gyro bias:"), "\(out2)")
        #expect(!FileManager.default.fileExists(atPath: fresh))

        // The names every other command uses: --output for what is written, --duration with units.
        let (written, out3) = try run(["calibrate", "gyro", "--input", trial, "--duration", "5s", "--output", fresh])
        #expect(written == 0, "\(out3)")
        #expect(FileManager.default.fileExists(atPath: fresh))
    }

    /// Numbers no clock can hold are refused, not trapped on: a duration of 1e19 s (its deadline's
    /// nanoseconds) or 1e308 h (infinite), a history time of 1e308 s or 1e300 days ago (the reply's
    /// RFC 3339 time). Each used to stop the command with a trap (exit by SIGILL, found by trying
    /// every numeric option with nan, ±inf, ±1e308, 1e19).
    @Test func durationsAndTimesNoClockHoldsAreRefused() throws {
        let dir = NSTemporaryDirectory() + "edgemotion-huge-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for command in ["run", "record", "replay"] {
            for value in ["1e19", "1e308h", "1000000001s"] {
                var arguments = [command, "--duration", value]
                if command == "replay" { arguments.insert(dir + "/none.csv", at: 1) }
                let (status, out) = try run(arguments)
                #expect(status == 64 && out.contains("is not a duration such as") && out.contains("at most 1e9 s"), "\(arguments): \(out)")
            }
        }
        for command in ["activity", "steps"] {
            for (from, to) in [("1e308", "1e308"), ("-1e300d", "now"), ("nan", "now"), ("0", "1e12")] {
                let (status, out) = try run([command, "--state-dir", dir, "--from", from, "--to", to])
                #expect(status == 64 && out.contains("is not a time") && out.contains("years 0001–9999"), "\(command) \(from) \(to): \(out)")
            }
        }
    }

    /// `--duration` takes the same forms (90, 90s, 20m, 2h) in every command that has it.
    @Test func everyDurationOptionTakesUnits() throws {
        let (bad, out) = try run(["run", "--duration", "soon"])
        #expect(bad == 64 && out.contains("is not a duration such as 90, 90s, 20m or 2h"), "\(out)")
        let dir = NSTemporaryDirectory() + "edgemotion-duration-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/c.yaml"
        try "state_directory: \(dir)\n".write(toFile: config, atomically: true, encoding: .utf8)
        let broker = try MosquittoBroker.start()
        defer { broker.stop() }
        let (ran, out2) = try run(["run", "--config", config, "--broker", broker.url, "--duration", "0.02m"])
        #expect(ran == 0, "\(out2)")
        let (recorded, out3) = try run(["record", "--config", config, "--duration", "0.02m", "--output", dir + "/rec"])
        #expect(recorded == 0, "\(out3)")
    }

    /// The commands that read the agent's state (activity, steps, recordings) find it the same
    /// ways: from --config, or --state-dir; giving both is refused rather than guessed.
    @Test func stateReadingCommandsAcceptConfigOrStateDirectory() throws {
        let dir = NSTemporaryDirectory() + "edgemotion-statedir-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/c.yaml"
        try "state_directory: \(dir)\n".write(toFile: config, atomically: true, encoding: .utf8)
        let (list, out1) = try run(["recordings", "list", "--state-dir", dir])
        #expect(list == 0 && out1.contains("no recordings in \(dir)/recordings"), "\(out1)")
        let (listConfig, out2) = try run(["recordings", "list", "--config", config])
        #expect(listConfig == 0 && out2.contains("no recordings in \(dir)/recordings"), "\(out2)")
        let (both, out3) = try run(["recordings", "list", "--config", config, "--state-dir", dir])
        #expect(both == 64 && out3.contains("not several"), "\(out3)")
        for command in ["activity", "steps"] {
            let (bothQuery, out4) = try run([command, "--from", "-1h", "--to", "now", "--config", config, "--state-dir", dir])
            #expect(bothQuery == 64 && out4.contains("give --config or --state-dir, not both"), "\(command): \(out4)")
            let (badConfig, out5) = try run([command, "--from", "-1h", "--to", "now", "--config", dir + "/missing.yaml"])
            #expect(badConfig == 64 && out5.contains("missing.yaml"), "\(command): \(out5)")
        }
    }

    /// `steps --input --rate 10 [--average]` counts a walk as a 10 Hz sensor would deliver it. Truth:
    /// oxford_steps' own count for the walk (278); within the 12 % the 10 Hz pedometer test allows.
    @Test(.enabled(if: SharedData.path("data/activity/oxford_steps/Samsung_Dario_Hard_Backpocket_2.csv.gz") != nil,
                   "shared data folder ../shared is absent (never copied into the repository)"))
    func stepsCountsARecordingReducedToTenHertz() throws {
        let walk = try #require(SharedData.path("data/activity/oxford_steps/Samsung_Dario_Hard_Backpocket_2.csv.gz"))
        for extra in [["--rate", "10"], ["--rate", "10", "--average"]] {
            let (status, out) = try run(["steps", "--input", walk] + extra)
            let steps = out.range(of: #""steps":[0-9]+"#, options: .regularExpression).flatMap { Int(out[$0].dropFirst(8)) }
            #expect(status == 0 && steps.map { abs(Double($0) - 278) <= 0.12 * 278 } == true, "\(extra): \(out)")
        }
        let (bad, out) = try run(["steps", "--input", walk, "--average"])
        #expect(bad == 64 && out.contains("--average needs --rate HZ"), "\(out)")
    }

    @Test func classifyAveragingNeedsARate() throws {
        let (status, out) = try run(["classify", "--input", "x.csv", "--output", "p.csv", "--average"])
        #expect(status == 64 && out.contains("--average needs --rate HZ"), "\(out)")
    }

    /// A rate no sensor has is refused by `classify` and `steps` alike: 1e300 Hz with `--average`
    /// used to stop `classify` with a trap (the interval number of a 38 s recording, 3.8e301).
    @Test(arguments: ["1e300", "100001", "0", "-5", "nan", "inf"])
    func aRateNoSensorHasIsRefused(rate: String) throws {
        for command in [["classify", "--input", "x.csv", "--output", "p.csv"], ["steps", "--input", "x.csv"]] {
            let (status, out) = try run(command + ["--rate", rate, "--average"])
            #expect(status == 64 && out.contains("--rate \(rate): expected a rate in Hz above 0, at most 100000"), "\(command[0]): \(out)")
        }
    }

    @Test(.enabled(if: SharedData.path("data/activity/st_har/walking_01.csv") != nil, "shared data folder ../shared is absent (never copied into the repository)"))
    func classifyConfigFilesAreReadStrictlyNamingTheKey() throws {
        let walk = try #require(SharedData.path("data/activity/st_har/walking_01.csv"))
        let dir = NSTemporaryDirectory() + "edgemotion-classify-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cases: [(String, String)] = [
            (#"{"detector":{"colour":1}}"#, "detector.colour: unknown setting"),
            (#"{"detector":{"hop":2.5}}"#, "detector.hop: expected a whole number, not 2.5"),
            (#"{"detector":{"minimumDwell":"long"}}"#, "detector.minimumDwell: expected a number, not long"),
            (#"{"detector":{"vehicleMinimumHorizontalRatio":-1}}"#, "detector.vehicleMinimumHorizontalRatio -1.0: use ≥ 0 (0 = off)"),
            (#"{"detector":{"runningMinimumStrideRate":-1}}"#, "detector.runningMinimumStrideRate -1.0 Hz: use ≥ 0 (0 = off)"),
            // A probability above 1 would never be reached: automotive silently never entered.
            (#"{"detector":{"vehicleEnterProbability":1.5}}"#, "detector.vehicleEnterProbability 1.5: use 0…1"),
            (#"{"detector":{"switchProbability":-0.5}}"#, "detector.switchProbability -0.5: use 0…1"),
            (#"{"detector":{"mediumConfidenceMargin":0.6}}"#, "detector.mediumConfidenceMargin 0.6 is above highConfidenceMargin 0.5: use medium ≤ high"),
            (#"{"model":{"classes":["flying"],"mean":[],"scale":[],"weights":[]}}"#, "model.classes: unknown class 'flying'"),
            // More than 10 decisions a second (25 Hz / 10 → hop ≥ 3): the cost, not the meaning, grows.
            (#"{"detector":{"hop":1}}"#, "detector.hop 1 at internalRate 25.0 Hz is more than 10 decisions per second: use hop ≥ 3"),
            // A weight that makes every logit infinite (probabilities NaN): found by scripts/fuzz activity-config.
            (#"{"model":{"classes":["walking"],"mean":[0,0,0,0,0,0,0,0,0,0,0,0],"scale":[1,1,1,1,1,1,1,1,1,1,1,1],"#
             + #""weights":[[1e308,0,0,0,0,0,0,0,0,0,0,0,0]]}}"#, "model weights must be finite, within ±1e9"),
            (#"{"model":{"classes":["walking"],"mean":[0,0,0,0,0,0,0,0,0,0,0,0],"scale":[1e-300,1,1,1,1,1,1,1,1,1,1,1],"#
             + #""weights":[[1,0,0,0,0,0,0,0,0,0,0,0,0]]}}"#, "model scale values must be within 1e-9 … 1e9"),
            (#"{"detectors":{}}"#, "unknown key 'detectors'"),
            ("{not json", "not a valid activity config"),
        ]
        for (i, (json, message)) in cases.enumerated() {
            let config = dir + "/c\(i).json"
            try json.write(toFile: config, atomically: true, encoding: .utf8)
            let (status, out) = try run(["classify", "--input", walk, "--output", dir + "/p.csv", "--config", config])
            #expect(status == 65 && out.contains(message), "\(json): \(out)")
        }
        // A valid file applies: a longer dwell still classifies the walk as walking.
        try #"{"detector":{"minimumDwell":8,"gaitEndMaximumStd":0.9}}"#.write(toFile: dir + "/ok.json", atomically: true, encoding: .utf8)
        let (ok, out) = try run(["classify", "--input", walk, "--output", dir + "/p.csv", "--config", dir + "/ok.json"])
        #expect(ok == 0, "\(out)")
        let rows = try String(contentsOfFile: dir + "/p.csv", encoding: .utf8).split(separator: "\n")
        #expect(rows.first == "t_s,label,confidence,flags" && rows.dropFirst().allSatisfy { $0.contains(",walking,") }, "\(rows.prefix(3))")
    }
}
