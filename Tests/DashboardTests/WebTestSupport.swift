import Foundation
import TestSupport

let curlAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")

/// The real agent with its dashboard, and the command-line tools the dashboard tests drive it with.
enum Web {
    /// Runs `tool` and returns (exit status, standard output and error).
    static func run(_ tool: String, _ arguments: [String], stdin: Data? = nil) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        let path = NSTemporaryDirectory() + "out-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        p.standardOutput = out
        p.standardError = out
        var inPath: String?
        if let stdin {
            inPath = NSTemporaryDirectory() + "in-\(UUID().uuidString)"
            _ = FileManager.default.createFile(atPath: inPath!, contents: stdin)
            p.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inPath!))
        } else { p.standardInput = FileHandle.nullDevice }
        defer { if let inPath { try? FileManager.default.removeItem(atPath: inPath) } }
        try p.run()
        p.waitUntilExit()
        try out.close()
        return (p.terminationStatus, (try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
    }

    /// HTTP status of a GET, with extra curl arguments.
    static func status(_ url: String, _ extra: [String] = []) throws -> Int {
        Int(try run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10"] + extra + [url]).1) ?? -1
    }

    /// The body of a GET (empty on failure).
    static func get(_ url: String, _ extra: [String] = []) throws -> String {
        try run("/usr/bin/curl", ["-s", "--max-time", "10"] + extra + [url]).1
    }

    /// A GET's body parsed as a JSON object, or nil.
    static func json(_ url: String) throws -> [String: Any]? {
        try JSONSerialization.jsonObject(with: Data(get(url).utf8)) as? [String: Any]
    }

    /// A private broker and the agent on the simulator (200 Hz, walking, real time) with its
    /// dashboard on a free loopback port (`http`: more `http:` keys, e.g. `live_rate: 30`); returns them and the dashboard's URL (`http://127.0.0.1:P/`).
    /// `simulator`: the `source.simulator` keys. `listen`: `http.listen`.
    static func startAgent(id: String = "web", http: String = "", extraYAML: String = "",
                           simulator: String = "scenario: walking, real_time: true, magnetometer: true",
                           listen: String = "127.0.0.1:0") throws -> (MosquittoBroker, AgentProcess, String) {
        let broker = try MosquittoBroker.start()
        let state = NSTemporaryDirectory() + "em-http-\(UUID().uuidString)"
        TemporaryFiles.removeAtExit(state)
        let config = try AgentProcess.writeConfig("""
            device: { id: \(id) }
            source: { type: simulator, rate: 200, simulator: { \(simulator) } }
            state_directory: \(state)
            http: { enabled: true, listen: "\(listen)"\(http.isEmpty ? "" : ", " + http) }
            \(extraYAML)
            """)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let r = agent.log.range(of: #"url=https?://127\.0\.0\.1:[0-9]+/"#, options: .regularExpression) {
                return (broker, agent, String(agent.log[r].dropFirst(4)))
            }
            usleep(100_000)
        }
        throw MosquittoBrokerError("the agent did not announce its dashboard URL:\n\(agent.log)")
    }

    /// `http://127.0.0.1:P/` → P.
    static func port(of url: String) -> Int {
        Int(url.split(separator: ":").last!.filter(\.isNumber))!
    }

    /// The package's root directory (for deploy/, docs/).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
