#if canImport(Glibc)
import Glibc
#endif
import Platform

/// `edgemotion check-config FILE…`: loads each file with every check the agent applies at
/// start-up and prints either a one-line summary or every problem found.
struct CheckConfigCommand: Command {
    let name = "check-config"
    let summary = "check configuration files and list every problem"
    let usage = """
    usage: edgemotion check-config FILE [FILE…]

    Loads each YAML configuration file exactly as 'edgemotion run' would and reports:
      FILE: OK (source simulator walking at 200 Hz, broker none)   when the file is valid;
      FILE:LINE:COLUMN: KEY.PATH: problem                        for every problem otherwise;
      FILE: warning: KEY.PATH: advice                            after OK, for a setting that the
        source's rate makes ineffective (an LSM6DSOX tap engine below 416 Hz, a vibration band
        above 0.45 × the rate, activity below 8 Hz) or a secret other users can read;
      FILE: note: KEY.PATH: what the rate leaves off             (tap below 100 Hz).
      Warnings and notes do not change the exit status.

    A replay source's recording must exist (as 'run' would look it up).

    example:
      edgemotion check-config /etc/edgemotion/edgemotion.yaml config/*.yaml

    Exit status: 0 all files valid, 1 a file has problems, 2 a file cannot be read,
                 64 no file given.
    Every key, its default and its allowed values: config/edgemotion.yaml, docs/configuration.md.
    """

    func run(arguments: [String]) -> Int32 {
        let files = arguments.filter { !$0.hasPrefix("-") || $0 == "-" }
        if let option = arguments.first(where: { $0.hasPrefix("-") && $0 != "-" }) {
            printError("edgemotion check-config: unknown option '\(option)'\n\n" + usage)
            return 64
        }
        guard !files.isEmpty else {
            printError(usage)
            return 64
        }
        var status: Int32 = 0
        for file in files {
            do {
                let config = try ConfigurationCheck.load(path: file)
                let problems = CheckConfigCommand.fileProblems(config, configurationFile: file)
                guard problems.isEmpty else {
                    for p in problems { print("\(file): \(p)") }
                    status = max(status, 1)
                    continue
                }
                print("\(file): OK (\(CheckConfigCommand.summary(of: config)))")
                // Advice, not errors: the agent runs this configuration as it is (exit status 0).
                for w in ConfigurationAdvice.warnings(for: config) { print("\(file): \(w.severity.rawValue): \(w)") }
            } catch {
                for diagnostic in error.diagnostics { print(diagnostic.description) }
                status = max(status, error.kind == .unreadable ? 2 : 1)
            }
        }
        return status
    }

    /// What only the file system can tell, checked as `run` would find it: the replay recording
    /// exists (relative paths: working directory, then the configuration file's directory) and
    /// `loop` is asked only of a CSV.
    static func fileProblems(_ config: AgentConfiguration, configurationFile: String) -> [String] {
        guard config.source.kind == .replay, let file = config.source.replay.file else { return [] }
        var problems: [String] = []
        let path = SourceFactory.resolve(file, relativeTo: configurationFile)
        if access(path, R_OK) != 0 {
            let why = errno == ENOENT ? "does not exist" : "cannot be read (\(Errno.current.text))"
            problems.append("source.replay.file: '\(file)' \(why); a relative path is looked up from the working directory, then from the configuration file's directory")
        }
        if let p = SourceFactory.loopProblem(config.source) { problems.append(p) }
        return problems
    }

    /// `source simulator walking at 200 Hz, broker mqtt://localhost:1883`
    static func summary(of config: AgentConfiguration) -> String {
        let s = config.source
        var source = "source " + s.kind.rawValue
        switch s.kind {
        case .simulator: source += " " + s.simulator.scenario
        case .replay: source += " " + (s.replay.file ?? "?") + " (speed \(s.replay.speed.rawValue))"
        case .iio: source += " " + s.iio.uri + (s.iio.devices.isEmpty ? (s.iio.device.map { " " + $0 } ?? "") : " " + s.iio.devices.joined(separator: "+"))
        case .i2c:
            let address = String(s.i2c.address, radix: 16)
            source += " \(s.i2c.chip) on /dev/i2c-\(s.i2c.bus) at 0x\(address.count < 2 ? "0" + address : address)"
        }
        source += " at " + hz(s.rate)
        if let dr = s.dataReady { source += ", data-ready \(dr.chip):\(dr.line)" }
        let broker = config.mqtt.brokerAddress.map(\.description) ?? "none"
        return source + ", broker " + broker
    }
}
