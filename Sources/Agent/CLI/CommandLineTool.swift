#if canImport(Glibc)
import Glibc
#endif

/// Dispatches `edgemotion <command> [arguments]` to the registered commands.
public enum CommandLineTool {
    /// The agent's version, printed by `--version` and published in `meta`.
    public static let version = "0.1.0"

    /// Every sub-command, in the order `--help` lists them. Add new commands here.
    public static let commands: [any Command] = [
        VersionCommand(),
        RunCommand(),
        CheckConfigCommand(),
        FusionCommand(),
        ClassifyCommand(),
        ActivityCommand(),
        StepsCommand(),
        EventsCommand(),
        ProbeCommand(),
        CalibrateCommand(),
        MountLearnCommand(),
        RecordCommand(),
        RecordingsCommand(),
        ReplayCommand(),
    ]

    public static func run(arguments: [String]) -> Int32 {
        guard let first = arguments.first else {
            print(overview)
            return 64
        }
        switch first {
        case "--help", "-h", "help":
            if arguments.count > 1, let c = commands.first(where: { $0.name == arguments[1] }) {
                print(c.usage)
            } else {
                print(overview)
            }
            return 0
        case "--version":
            print("edgemotion \(version)")
            return 0
        default:
            guard let command = commands.first(where: { $0.name == first }) else {
                printError("edgemotion: unknown command '\(first)'. Run 'edgemotion --help' for the list.")
                return 64
            }
            let rest = Array(arguments.dropFirst())
            if rest.contains("--help") || rest.contains("-h") {
                print(command.usage)
                return 0
            }
            return command.run(arguments: rest)
        }
    }

    static var overview: String {
        var text = """
        edgemotion \(version): Core Motion for Linux edge boards, published over MQTT.

        usage: edgemotion <command> [options]
               edgemotion --version
               edgemotion <command> --help

        commands:

        """
        let width = commands.map(\.name.count).max() ?? 0
        for c in commands {
            text += "  " + c.name + String(repeating: " ", count: width - c.name.count + 2) + c.summary + "\n"
        }
        return text
    }
}

struct VersionCommand: Command {
    let name = "version"
    let summary = "print the version"
    let usage = "usage: edgemotion version\n\nPrints the agent's version (same as --version).\n\nexample:\n  edgemotion version\n\nexit status: 0."
    func run(arguments: [String]) -> Int32 {
        print("edgemotion \(CommandLineTool.version)")
        return 0
    }
}
