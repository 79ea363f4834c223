/// `edgemotion events set-level | arm-tamper | disarm-tamper`: the `cmd/events` actions sent to
/// the running agent over its broker (`AgentCommandRequest`), as the Home Assistant buttons do.
extension EventsCommand {
    /// The sub-command words and the `cmd/events` action each sends.
    static let agentActions = ["set-level": "set_level", "arm-tamper": "arm_tamper", "disarm-tamper": "disarm_tamper"]

    /// Runs `edgemotion events <word> [options]`; the exit status.
    func runAgentAction(_ word: String, arguments: [String]) -> Int32 {
        guard let action = Self.agentActions[word] else { return 64 }
        guard let options = OptionScanner(command: "\(name) \(word)", arguments: arguments,
                                          valued: ["--config", "--broker", "--device-id", "--timeout"], usage: usage) else { return 64 }
        guard options.positional.isEmpty else {
            printError("edgemotion events \(word): unexpected argument '\(options.positional[0])'. Run 'edgemotion events --help'.")
            return 64
        }
        var timeout = 5.0
        if let text = options["--timeout"] {
            guard let t = OptionScanner.duration(text), t <= 600 else {
                printError("edgemotion events \(word): --timeout: '\(text)' is not a duration of at most 600 s (5, 5s, 1m)")
                return 64
            }
            timeout = t
        }
        guard let c = options.configuration() else { return 2 }
        let request = AgentCommandRequest(configuration: c, name: "events", timeout: timeout)
        do throws(AgentCommandRequest.Failure) {
            print(try request.send(fields: "\"action\":\"\(action)\""))
            return 0
        } catch {
            printError("edgemotion events \(word): \(error)")
            return error.exitStatus
        }
    }
}
