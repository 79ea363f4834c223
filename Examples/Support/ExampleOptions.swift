#if canImport(Glibc)
import Glibc
#endif
import EdgeMotion
import Sensors

/// Command-line options shared by the examples (each example is `main.swift` plus this): `--duration SECONDS`, `--scenario NAME`
/// (simulator; default per example), `--replay FILE` (a recording instead of the simulator).
public struct ExampleOptions: Sendable {
    public var duration: Double = 5
    public var scenario: String
    public var replay: String?
    /// `--real-time`: run the simulator on the wall clock (activity-logger; the other examples
    /// always do).
    public var realTime = false

    public static func parse(defaultScenario: String = "walking") -> ExampleOptions {
        var o = ExampleOptions(scenario: defaultScenario)
        var args = CommandLine.arguments.dropFirst()
        while let arg = args.popFirst() {
            switch arg {
            case "--duration":
                guard let v = args.popFirst().flatMap(Double.init), v > 0 else { fail("--duration needs a positive number of seconds") }
                o.duration = v
            case "--scenario":
                guard let v = args.popFirst() else { fail("--scenario needs a name: \(SimulationScenario.names.joined(separator: ", "))") }
                o.scenario = v
            case "--replay":
                guard let v = args.popFirst() else { fail("--replay needs a CSV or CSV.gz recording") }
                o.replay = v
            case "--real-time":
                o.realTime = true
            case "-h", "--help":
                print("usage: \(CommandLine.arguments[0]) [--duration SECONDS] [--scenario NAME] [--replay FILE] [--real-time]")
                exit(0)
            default:
                fail("unknown option '\(arg)'; try --help")
            }
        }
        return o
    }

    /// A manager on the replayed recording, or on the simulator running the scenario.
    public func makeManager() -> MotionManager {
        if let replay {
            do {
                return try MotionManager.replay(path: replay)
            } catch {
                fail("\(error)")
            }
        }
        guard let scenario = SimulationScenario(named: scenario) else {
            fail("unknown scenario '\(scenario)'; use one of \(SimulationScenario.names.joined(separator: ", "))")
        }
        return MotionManager.simulator(scenario: scenario)
    }
}

public func fail(_ message: String) -> Never {
    let line = "error: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(64)
}

/// UTC time of day `hh:mm:ss` of a Unix time in seconds.
public func timeOfDay(_ unixTime: Double) -> String {
    let t = Int(unixTime.rounded(.down)) % 86_400
    func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
    return "\(two(t / 3600)):\(two(t / 60 % 60)):\(two(t % 60))"
}

/// `value` with `digits` decimals, sign always shown (no Foundation needed).
public func fixed(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let r = (abs(value) * scale).rounded()
    let whole = Int(r / scale)
    var frac = String(Int(r.truncatingRemainder(dividingBy: scale)))
    while frac.count < digits { frac = "0" + frac }
    return (value < 0 && r > 0 ? "-" : "+") + String(whole) + (digits > 0 ? "." + frac : "")
}
