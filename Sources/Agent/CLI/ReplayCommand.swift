import Logging

/// `edgemotion replay FILE`: plays a recording through the whole pipeline and publishes it
/// like a live device, so a field problem can be reproduced on a desk.
struct ReplayCommand: Command {
    let name = "replay"
    let summary = "play a recording (.emr or CSV) through the pipeline and publish it"
    let usage = """
    usage: edgemotion replay FILE [--speed recorded|max] [--loop] [--config FILE] [--broker URL]
                             [--device-id ID] [--duration DURATION] [--log-level LEVEL]

    Plays FILE — a recording made by 'edgemotion record' or the recorder (.emr), or a CSV / CSV.gz
    in the shared schema (t_s,gx,gy,gz,ax,ay,az,mx,my,mz) such as 'edgemotion recordings export'
    writes — through sensor fusion, activity detection and publishing, exactly as 'edgemotion run'
    does with a live source, then stops at the end of the file. Everything but source: comes from
    --config (streams, fusion, mqtt, home_assistant, …).

    options:
      FILE                  the recording (.emr, .csv or .csv.gz)
      --speed recorded|max  recorded: at the recorded pace (default); max: as fast as the
                            pipeline runs, losing nothing
      --loop                start over at the end (CSV recordings only; until a signal or --duration)
      --config FILE         configuration for everything except the source
      --broker URL          broker URL (mqtt://host:port), overrides mqtt.broker
      --device-id ID        overrides device.id (topics go to edgemotion/<ID>/…)
      --duration DURATION   stop after DURATION: 90, 90s, 20m, 2h
      --log-level LEVEL     trace, debug, info, notice, warning, error

    example:
      edgemotion replay /var/lib/edgemotion/recordings/rec-20261130T093113Z-232011.emr --speed max --broker mqtt://localhost:1883

    exit status: as 'edgemotion run': 0 done; 1 the file cannot be played; 2 configuration or
    broker error; 64 usage.
    """

    func run(arguments: [String]) -> Int32 {
        SignalWaiter.blockSignals()
        guard let options = OptionScanner(command: name, arguments: arguments,
                                          valued: ["--speed", "--config", "--broker", "--device-id", "--duration", "--log-level"],
                                          flagNames: ["--loop"], usage: usage) else { return 64 }
        guard options.positional.count == 1, let file = options.positional.first else {
            printError(options.positional.isEmpty ? "edgemotion replay: which recording? give FILE\n\n\(usage)"
                                                  : "edgemotion replay: one FILE only, got \(options.positional.count)")
            return 64
        }
        var speed = ReplaySpeed.recorded
        if let s = options["--speed"] {
            guard let v = ReplaySpeed(rawValue: s) else {
                printError("edgemotion replay: --speed: '\(s)' is not recorded or max")
                return 64
            }
            speed = v
        }
        guard let duration = options.duration("--duration") else { return 64 }
        guard var c = options.configuration() else { return 2 }
        c.source.kind = .replay
        c.source.replay.file = file
        c.source.replay.speed = speed
        c.source.replay.loop = options.flags.contains("--loop")
        c.sourceFile = nil
        if SourceFactory.loopProblem(c.source) != nil {
            printError("edgemotion replay: --loop works for CSV recordings only; \(file) is an .emr recording and plays once (export it with 'edgemotion recordings export' to loop it)")
            return 64
        }
        Logger.threshold = c.logging.level
        do {
            return try AgentRunner(configuration: c).run(duration: duration)
        } catch {
            return error.exitStatus   // logged by the runner
        }
    }
}
