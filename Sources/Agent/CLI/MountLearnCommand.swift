#if canImport(Glibc)
import Glibc
#endif
import MotionCore
import Platform
import Sensors

/// `edgemotion mount learn|show|clear`: the learned mount in `<state_directory>/edgemotion-mount.txt`
/// (what `source.mount` uses when `accel_gyro` is `learned` or unset). `learn` averages resting
/// samples from the configured source (or the start of a recording) and refuses if the board moved.
/// The running agent learns the same way from `cmd/mount` and applies it at once.
struct MountLearnCommand: Command {
    let name = "mount"
    let summary = "learn the board's mount from a resting reading (gravity becomes −z), show or clear it"
    let usage = """
        usage: edgemotion mount learn [--config FILE] [--input RECORDING] [--samples N] [--dry-run]
               edgemotion mount show  [--config FILE]
               edgemotion mount clear [--config FILE]

          learn   put the board in its final place and keep it still: averages N samples of the
                  configured source (stop the agent first: it holds the sensor), or the first N of
                  --input, and stores the rotation that turns the measured gravity to −z
                  (board +z up). Refused when the board was not at rest.
          show    prints the learned rotation and what the configuration applies
          clear   removes the learned mount (the running agent: cmd/mount {"action":"clear"})

          --config FILE     the agent's configuration (source, state_directory, source.mount)
          --input FILE      a recording (.emr, or the shared CSV schema) instead of the live source
          --samples N       resting samples averaged, \(MountCommand.samplesRange.lowerBound)…\(MountCommand.samplesRange.upperBound) (default \(MountCommand.defaultSamples))
          --dry-run         print the result, write nothing

        example:
          sudo systemctl stop edgemotion
          edgemotion mount learn --config /etc/edgemotion/edgemotion.yaml
          sudo systemctl start edgemotion

        exit status: 0 done; 64 usage; 2 configuration error (or source.mount.accel_gyro fixed);
        65 not at rest, or the stored file is damaged; 66 the source or recording cannot be read;
        73 cannot write.
        """

    func run(arguments: [String]) -> Int32 {
        guard let action = arguments.first, ["learn", "show", "clear"].contains(action) else {
            printError("edgemotion mount: say learn, show or clear. Run 'edgemotion mount --help'.")
            return 64
        }
        guard let options = OptionScanner(command: name, arguments: Array(arguments.dropFirst()),
                                          valued: ["--config", "--input", "--samples"], flagNames: ["--dry-run"],
                                          usage: usage) else { return 64 }
        guard options.positional.isEmpty else {
            printError("edgemotion mount: unexpected argument '\(options.positional[0])'. Run 'edgemotion mount --help'.")
            return 64
        }
        guard let c = options.configuration() else { return 2 }
        let path = MountSetup.path(c)
        switch action {
        case "show":
            do throws(MountFileError) {
                let learned = try MountSetup.learned(c)
                print(learned.map { "learned (\(path)): \(Self.rows($0.matrix))" } ?? "learned: none (\(path) does not exist)")
                let applied = c.source.mount.resolved(learned: c.source.mount.usesLearned ? learned : nil)
                print("applied: accel_gyro \(Self.rows(applied.inertial.matrix)); magnetometer \(Self.rows(applied.magnetometer.matrix))")
                return 0
            } catch {
                printError("edgemotion mount: \(error)")
                return 65
            }
        case "clear":
            guard c.source.mount.canLearn else { return refuseFixed() }
            if unlink(path) != 0, errno != ENOENT {
                printError("edgemotion mount: cannot remove \(path): \(Errno.current.text)")
                return 73
            }
            print("removed \(path); the agent applies the configured mount (identity for learned) at its next start")
            return 0
        default:
            break
        }
        guard c.source.mount.canLearn else { return refuseFixed() }
        var samples = MountCommand.defaultSamples
        if let text = options["--samples"] {
            guard let n = Int(text), MountCommand.samplesRange.contains(n) else {
                printError("edgemotion mount: --samples needs a whole number, \(MountCommand.samplesRange.lowerBound)…\(MountCommand.samplesRange.upperBound).")
                return 64
            }
            samples = n
        }
        var learner = MountLearner(samples: samples)
        if let input = options["--input"] {
            let recording: FusionRecording
            do { recording = try FusionRecording(path: input) } catch {
                printError("edgemotion mount: \(error)")
                return 66
            }
            for k in 0..<min(samples, recording.count) {
                learner.add(specificForce: recording.accelerometer[k], rotationRate: recording.gyroscope[k])
            }
        } else if let status = readLive(c, into: &learner) {
            return status
        }
        let r: MountLearner.Result
        switch learner.result() {
        case .failure(let refusal):
            printError("edgemotion mount learn: \(refusal)")
            return 65
        case .success(let result): r = result
        }
        let f = r.meanSpecificForce
        print("resting specific force \(Self.fmt(f.x)) \(Self.fmt(f.y)) \(Self.fmt(f.z)) m/s² over \(r.samples) samples (spread \(Self.fmt(r.accelerometerSpread)) m/s²); tilt \(Self.fmt(MountControl.Reply.tiltDegrees(f))) °")
        print("rotation (chip → board): \(Self.rows(r.mount.matrix))")
        if options.flags.contains("--dry-run") { return 0 }
        if access(c.stateDirectory, F_OK) != 0 { mkdir(c.stateDirectory, 0o700) }
        do throws(FileError) {
            try WholeFile.write(MountFile.encode(r.mount, restingSpecificForce: f, samples: r.samples), atomicallyTo: path)
        } catch {
            printError("edgemotion mount: cannot write \(path): \(error); check state_directory exists and is writable")
            return 73
        }
        print("wrote \(path); the agent applies it at its next start (a running agent: cmd/mount)")
        return 0
    }

    /// Reads `learner.wanted` samples from the configured source; an exit status on failure.
    private func readLive(_ c: AgentConfiguration, into learner: inout MountLearner) -> Int32? {
        let source: any IMUSource
        do {
            source = try SourceFactory.makeSource(c.source, configurationFile: c.sourceFile, streams: c.streams)
            _ = try source.start(requestedRate: c.source.rate)
        } catch {
            printError("edgemotion mount: cannot open the source: \(error) (is the agent running? stop it first)")
            return 66
        }
        defer { source.stop() }
        let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 256)
        defer { buffer.deallocate() }
        var timeouts = 0
        while !learner.isComplete {
            do {
                switch try source.read(into: buffer, timeout: .milliseconds(100)) {
                case .samples(let n):
                    for i in 0..<n { learner.add(buffer[i]) }
                case .timeout:
                    timeouts += 1
                    if timeouts > 100 {
                        printError("edgemotion mount: no samples for 10 s from \(source.capabilities.name)")
                        return 66
                    }
                case .endOfStream:
                    return nil
                }
            } catch {
                printError("edgemotion mount: reading \(source.capabilities.name) failed: \(error)")
                return 66
            }
        }
        return nil
    }

    private func refuseFixed() -> Int32 {
        printError("edgemotion mount: source.mount.accel_gyro is fixed in the configuration; set it to learned (or remove it) to use a learned mount")
        return 2
    }

    static func rows(_ m: Matrix3) -> String {
        [m.row1, m.row2, m.row3].map { "[\(fmt($0.x)), \(fmt($0.y)), \(fmt($0.z))]" }.joined(separator: " ")
    }

    static func fmt(_ v: Double) -> String {
        let r = (v * 10000).rounded() / 10000
        return "\(r == 0 ? 0 : r)"
    }
}
