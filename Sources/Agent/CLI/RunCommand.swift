import Logging

/// `edgemotion run`: the agent itself.
struct RunCommand: Command {
    let name = "run"
    let summary = "run the agent: sample the IMU, fuse, publish to MQTT"
    let usage = """
    usage: edgemotion run [--config FILE] [--broker URL] [--device-id ID] [--duration DURATION]
                          [--log-level LEVEL]

    Samples the configured IMU source, runs sensor fusion and publishes every configured stream
    under <topic_prefix>/ (default edgemotion/<device-id>/) until SIGINT or SIGTERM, then
    publishes a retained 'offline' status and disconnects (within about 2 s).

    options:
      --config FILE         configuration file (default: built-in defaults: simulated IMU)
      --broker URL          broker URL, overrides mqtt.broker (mqtt://host:port, mqtts://…)
      --device-id ID        overrides device.id (default: the host name)
      --duration DURATION   stop by itself after DURATION: 90, 90s, 20m, 2h
      --log-level LEVEL     trace, debug, info, notice, warning, error (overrides logging.level)

    example:
      edgemotion run --config /etc/edgemotion/edgemotion.yaml --log-level debug

    exit status: 0 after a clean stop; 1 when the source cannot start; 2 for configuration or
    broker settings errors; 64 for bad command-line usage.
    """

    func run(arguments: [String]) -> Int32 {
        // Before any thread exists, so every thread inherits the blocked signal mask.
        SignalWaiter.blockSignals()

        var configPath: String?
        var overrides = ConfigurationOverrides()
        var duration: Double?
        var i = 0
        func value(_ option: String) -> String? {
            guard i + 1 < arguments.count else {
                printError("edgemotion run: \(option) needs a value")
                return nil
            }
            i += 1
            return arguments[i]
        }
        while i < arguments.count {
            let arg = arguments[i]
            switch arg {
            case "--config":
                guard let v = value(arg) else { return 64 }
                configPath = v
            case "--broker":
                guard let v = value(arg) else { return 64 }
                overrides.broker = v
            case "--device-id":
                guard let v = value(arg) else { return 64 }
                overrides.deviceID = v
            case "--duration":
                guard let v = value(arg) else { return 64 }
                guard let d = OptionScanner.duration(v) else {
                    printError(OptionScanner.durationProblem(command: "run", option: arg, text: v))
                    return 64
                }
                duration = d
            case "--log-level":
                guard let v = value(arg) else { return 64 }
                guard let level = LogLevel(name: v) else {
                    printError("edgemotion run: --log-level: '\(v)' is not one of \(LogLevel.allCases.map(\.name).joined(separator: ", "))")
                    return 64
                }
                overrides.logLevel = level
            default:
                printError("edgemotion run: unknown option '\(arg)'\n\n\(usage)")
                return 64
            }
            i += 1
        }

        var configuration: AgentConfiguration
        do {
            if let configPath {
                configuration = try ConfigurationCheck.load(path: configPath, overrides: overrides)
            } else {
                configuration = try AgentConfiguration.default.applying(overrides: overrides)
                try ConfigurationCheck.check(configuration, file: "command line")
            }
        } catch {
            printError("\(error)")
            return 2
        }
        Logger.threshold = configuration.logging.level
        do {
            return try AgentRunner(configuration: configuration, configPath: configPath, overrides: overrides).run(duration: duration)
        } catch {
            return error.exitStatus   // logged by the runner
        }
    }
}
