import Logging
import Platform
#if canImport(Glibc)
import Glibc
#endif

/// Reads `--option value` pairs, flags and positional arguments for the recording commands,
/// reporting problems in the `edgemotion <command>: …` form.
struct OptionScanner {
    let command: String
    private(set) var values: [String: String] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positional: [String] = []

    /// Parses `arguments`; `valued` options take a value, `flagNames` do not. Returns `nil`
    /// after printing the problem and `usage`.
    init?(command: String, arguments: [String], valued: [String], flagNames: [String] = [], usage: String) {
        self.command = command
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            if valued.contains(a) {
                guard i + 1 < arguments.count else {
                    printError("edgemotion \(command): \(a) needs a value")
                    return nil
                }
                values[a] = arguments[i + 1]
                i += 2
                continue
            }
            if flagNames.contains(a) {
                flags.insert(a)
            } else if a.hasPrefix("--") {
                printError("edgemotion \(command): unknown option '\(a)'\n\n\(usage)")
                return nil
            } else {
                positional.append(a)
            }
            i += 1
        }
    }

    subscript(option: String) -> String? { values[option] }

    /// The value of `canonical` or of its older `alias` (kept so existing scripts work), with the
    /// name the user typed; `nil` after printing the problem when both are given.
    func oneOf(_ canonical: String, _ alias: String) -> (name: String, value: String?)? {
        switch (values[canonical], values[alias]) {
        case (.some, .some):
            printError("edgemotion \(command): give \(canonical) or its older name \(alias), not both")
            return nil
        case (nil, .some(let v)): return (alias, v)
        case (let v, nil): return (canonical, v)
        }
    }

    /// The configuration from `--config` (or the defaults) with `--device-id`, `--broker` and
    /// `--log-level` applied; prints the problem and returns `nil` on error.
    func configuration() -> AgentConfiguration? {
        var overrides = ConfigurationOverrides()
        overrides.broker = values["--broker"]
        overrides.deviceID = values["--device-id"]
        if let level = values["--log-level"] {
            guard let l = LogLevel(name: level) else {
                printError("edgemotion \(command): --log-level: '\(level)' is not one of \(LogLevel.allCases.map(\.name).joined(separator: ", "))")
                return nil
            }
            overrides.logLevel = l
        }
        do {
            var c = try values["--config"].map { path throws(ConfigError) in try ConfigurationLoader.load(path: path) } ?? .default
            c = try c.applying(overrides: overrides)
            return c
        } catch {
            printError("\(error)")
            return nil
        }
    }

    /// Longest duration an option takes, s (~31.7 years: its nanoseconds fit every clock here).
    static let longestDuration = 1e9

    /// The seconds duration option `option` gives: `.some(nil)` when it is absent, `nil` after
    /// printing the problem (`guard let seconds = options.duration("--duration") else { return 64 }`).
    func duration(_ option: String) -> Double?? {
        guard let text = values[option] else { return .some(nil) }
        guard let seconds = Self.duration(text) else {
            printError(Self.durationProblem(command: command, option: option, text: text))
            return nil
        }
        return seconds
    }

    /// What `edgemotion <command>` says of a duration option it cannot read.
    static func durationProblem(command: String, option: String, text: String) -> String {
        "edgemotion \(command): \(option): '\(text)' is not a duration such as 90, 90s, 20m or 2h (above 0, at most 1e9 s)"
    }

    /// `90`, `90s`, `20m`, `2h`, `1.5h` → seconds; `nil` for anything else, ≤ 0 or above
    /// `longestDuration` (1e19 s used to trap converting the deadline to nanoseconds).
    static func duration(_ text: String) -> Double? {
        var number = Substring(text)
        var scale = 1.0
        switch text.last {
        case "s": number = number.dropLast()
        case "m": number = number.dropLast(); scale = 60
        case "h": number = number.dropLast(); scale = 3600
        case "d": number = number.dropLast(); scale = 86_400
        default: break
        }
        guard let v = Double(number), v > 0, v.isFinite, v * scale <= longestDuration else { return nil }
        return v * scale
    }
}
