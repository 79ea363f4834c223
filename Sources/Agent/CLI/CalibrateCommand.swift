#if canImport(Glibc)
import Glibc
#endif
import Platform
import MotionCore
import Sensors

/// `edgemotion calibrate gyro|accel|mag`: computes a sensor calibration from a recording and
/// stores it in the calibration file (other parts of an existing file are kept).
struct CalibrateCommand: Command {
    let name = "calibrate"
    let summary = "calibrate gyro bias, accelerometer (six faces) or magnetometer (ellipsoid) from a recording"
    let usage = """
        usage: edgemotion calibrate gyro|accel|mag --input RECORDING [--config FILE] [--output CALIBRATION]
                                                   [--sensor ID] [--duration DURATION] [--chip-axes]
                                                   [--dry-run] [--replace]

          gyro    keep the device still for 10–30 s: the mean rate is the bias
          accel   rest the device on each of its six faces for 5 s (any order)
          mag     turn the device slowly through every orientation for 30–60 s, away from metal;
                  prints the field strength, direction coverage, residual and a verdict (good/fair/poor)

          --input FILE   a recording: .emr (edgemotion record) or the shared CSV schema (t_s, gx,gy,gz rad/s,
                         ax,ay,az m/s², mx,my,mz µT; .csv or .csv.gz, edgemotion recordings export)
          --config FILE  the agent's configuration: the file goes where the agent loads it
                         (fusion.calibration_file, else <state_directory>/edgemotion-calibration.txt)
                         and is made for its device.id (default: built-in defaults, i.e.
                         /var/lib/edgemotion/edgemotion-calibration.txt and the host name)
          --output FILE  calibration file to update (default: the one --config names, see above;
                         --file is the older name and still works)
          --sensor ID    sensor identity stored in the file; the agent loads only a file made for its
                         device.id (default: --config's device.id, else the sanitised host name)
          --duration D   use only the first D of the recording: 25, 25s, 2m (e.g. its still start;
                         --seconds N is the older name and still works)
          --chip-axes    the recording is in chip axes already; by default it is taken to be in the
                         board axes of --config's mount (source.mount and the learned mount file:
                         what the agent applied when it recorded) and turned back into chip axes
          --dry-run      print the result, write nothing
          --replace      start a new file even if the existing one is damaged or belongs to another sensor

        The calibration is kept in chip axes, so a mount learned or changed later leaves it valid.
        A poor magnetometer fit is not written. The file is versioned and checksummed; a damaged or
        mismatched file is reported and ignored as a whole, never half-applied.

        example:
          edgemotion record --config /etc/edgemotion/edgemotion.yaml --duration 30s --output /tmp/cal-gyro
          edgemotion calibrate gyro --config /etc/edgemotion/edgemotion.yaml --input /tmp/cal-gyro/rec-*.emr

        exit status: 0 calibrated (or --dry-run); 64 usage; 65 the recording does not allow a good fit,
        or the existing file is damaged or foreign (--replace); 2 configuration error;
        66 a file cannot be read; 73 cannot write.
        """

    func run(arguments: [String]) -> Int32 {
        guard let kind = arguments.first, ["gyro", "accel", "mag"].contains(kind) else {
            printError("edgemotion calibrate: say what to calibrate: gyro, accel or mag. Run 'edgemotion calibrate --help'.")
            return 64
        }
        guard let options = OptionScanner(command: name, arguments: Array(arguments.dropFirst()),
                                          valued: ["--input", "--config", "--output", "--file", "--sensor", "--duration", "--seconds"],
                                          flagNames: ["--dry-run", "--replace", "--chip-axes"], usage: usage) else { return 64 }
        guard options.positional.isEmpty else {
            printError("edgemotion calibrate: unexpected argument '\(options.positional[0])'. Run 'edgemotion calibrate --help'.")
            return 64
        }
        guard let outputOption = options.oneOf("--output", "--file"),
              let durationOption = options.oneOf("--duration", "--seconds") else { return 64 }
        let input = options["--input"]
        // One path and one identity for the guide, this command and the agent (FusionSetup).
        guard let configuration = options.configuration() else { return 2 }
        let file = outputOption.value ?? FusionSetup.calibrationPath(configuration)
        let sensor = options["--sensor"] ?? FusionSetup.calibrationSensor(configuration)
        let dryRun = options.flags.contains("--dry-run"), replace = options.flags.contains("--replace")
        var seconds = Double.infinity
        if let text = durationOption.value {
            guard let s = OptionScanner.duration(text) else {
                printError("edgemotion calibrate: \(durationOption.name) needs a positive duration such as 25, 25s or 2m.")
                return 64
            }
            seconds = s
        }
        guard let input else {
            printError("edgemotion calibrate: --input RECORDING is required: record one first with 'edgemotion record --duration 30s --output DIR' (docs/calibration.md).")
            return 64
        }
        var recording: FusionRecording
        do { recording = try FusionRecording(path: input) } catch {
            printError("edgemotion calibrate: \(error)")
            return 66
        }
        if seconds.isFinite { recording.keepFirst(seconds: seconds) }
        if !options.flags.contains("--chip-axes") {
            let mount: IMUMount
            do throws(MountFileError) { mount = try MountSetup.resolve(configuration) } catch {
                printError("edgemotion calibrate: \(error)")
                return 2
            }
            if !mount.isIdentity {
                recording.toChipAxes(mount)
                print("recording taken to be in the board axes of the configured mount; calibrating in chip axes (--chip-axes if it is not)")
            }
        }

        // The existing file, if any, must be intact to be updated.
        var calibration = SensorCalibration.none
        var existing: String?
        do throws(FileError) { existing = try WholeFile.text(atPath: file) } catch where error.isMissing {
            existing = nil
        } catch {
            printError("edgemotion calibrate: cannot read \(file): \(error).")
            return 66
        }
        if let text = existing {
            do { calibration = try CalibrationFile.decode(text, expectedSensor: sensor, source: file) } catch {
                if !replace {
                    printError("edgemotion calibrate: \(error). Use --replace to start a new file.")
                    return 65
                }
            }
        }

        switch kind {
        case "gyro":
            var c = GyroscopeCalibrator()
            for k in 0..<recording.count { c.add(gyroscope: recording.gyroscope[k], accelerometer: recording.accelerometer[k]) }
            do {
                let r = try c.fit()
                let deg = 180 / Double.pi
                print("gyro bias: \(fmt(r.bias.x * deg)) \(fmt(r.bias.y * deg)) \(fmt(r.bias.z * deg)) °/s  (noise \(fmt(r.noise * deg)) °/s, \(r.samples) samples)")
                calibration.gyroBias = r.bias
            } catch {
                printError("edgemotion calibrate gyro: \(error)")
                return 65
            }
        case "accel":
            var c = AccelerometerCalibrator(samplePeriod: recording.samplePeriod)
            var previous = recording.time[0] - recording.samplePeriod
            for k in 0..<recording.count {
                var dt = recording.time[k] - previous
                if !(dt > 0 && dt < 10 * recording.samplePeriod) { dt = recording.samplePeriod }
                previous = recording.time[k]
                c.add(gyroscope: recording.gyroscope[k], accelerometer: recording.accelerometer[k], dt: dt)
            }
            do {
                let r = try c.fit()
                print("accelerometer offset: \(fmt(r.offset.x)) \(fmt(r.offset.y)) \(fmt(r.offset.z)) m/s²; scale: \(fmt(r.scale.x)) \(fmt(r.scale.y)) \(fmt(r.scale.z))")
                calibration.accelerometerOffset = r.offset
                calibration.accelerometerScale = r.scale
            } catch {
                printError("edgemotion calibrate accel: \(error)")
                return 65
            }
        default:
            guard recording.hasMagnetometer else {
                printError("edgemotion calibrate mag: \(input) has no mx,my,mz columns.")
                return 65
            }
            var c = MagnetometerCalibrator()
            // On a terminal: the direction coverage as it fills (a fit every 5 % of the recording).
            var progress = ProgressLine("calibrate mag", unit: "samples", total: recording.count)
            let step = max(1, recording.count / 20)
            for (k, m) in recording.magnetometer.enumerated() {
                c.add(m)
                if progress.enabled, k % step == step - 1 {
                    let coverage = (try? c.fit()).map { "coverage \(Int(($0.coverage * 100).rounded())) %" } ?? "coverage –"
                    progress.update(k + 1, detail: coverage)
                }
            }
            progress.finish()
            do {
                let r = try c.fit()
                print("magnetometer offset: \(fmt(r.offset.x)) \(fmt(r.offset.y)) \(fmt(r.offset.z)) µT; field strength \(fmt(r.fieldStrength)) µT")
                print("coverage \(Int((r.coverage * 100).rounded())) %, residual \(fmt(r.residual * 100)) %, verdict: \(r.verdict.rawValue); advice: \(r.advice)")
                guard r.verdict != .poor else {
                    printError("edgemotion calibrate mag: the fit is poor and was not stored; \(r.advice)")
                    return 65
                }
                calibration.magnetometerOffset = r.offset
                calibration.magnetometerSoftIron = r.softIron
                calibration.magnetometerFieldStrength = r.fieldStrength
            } catch {
                printError("edgemotion calibrate mag: \(error)")
                return 65
            }
        }
        if dryRun { return 0 }
        // The agent creates its state directory at its first start; the guide may run before it.
        if outputOption.value == nil, configuration.fusion.calibrationFile == nil,
           access(configuration.stateDirectory, F_OK) != 0 {
            mkdir(configuration.stateDirectory, 0o700)
        }
        let text = CalibrationFile.encode(calibration, sensor: sensor)
        guard (try? WholeFile.write(text, atomicallyTo: file)) != nil else {
            printError("edgemotion calibrate: cannot write \(file): \(Errno.current.text); check the directory exists and is writable")
            return 73
        }
        print("wrote \(file) for sensor \(sensor); the agent applies it at its next start")
        return 0
    }

    private func fmt(_ v: Double) -> String {
        let r = (v * 10000).rounded() / 10000
        return "\(r)"
    }
}
