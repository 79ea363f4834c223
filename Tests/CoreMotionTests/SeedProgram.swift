import Foundation

/// Runs one of the iOS seed programs (`Examples/iOS`, built beside the test bundle) with an
/// environment and returns what it printed and its exit status.
struct SeedProgram {
    let name: String

    static func directory() -> URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while !FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent("ios-pull-timer").path), dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir
    }

    var path: String { Self.directory().appendingPathComponent(name).path }
    var isBuilt: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Runs the program to its end (at most `timeout` seconds; killed after).
    func run(_ environment: [String: String], timeout: Double = 40) throws -> (output: String, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        var env = ProcessInfo.processInfo.environment
        env["EDGEMOTION_CONFIG"] = "/nonexistent/edgemotion.yaml"   // never the machine's own file
        env.removeValue(forKey: "EDGEMOTION_SOURCE")
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let outPath = NSTemporaryDirectory() + "seed-\(name)-\(UUID().uuidString).out"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: outPath) }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try out.close()
        let data = FileManager.default.contents(atPath: outPath) ?? Data()
        return (String(decoding: data, as: UTF8.self), process.terminationStatus)
    }
}

/// The numbers after `key` on each line that contains it: `values("roll", in: "roll 1.0 pitch 2")`.
func numbers(after key: String, in output: String) -> [Double] {
    output.split(separator: "\n").compactMap { line -> Double? in
        let words = line.split(separator: " ")
        guard let i = words.firstIndex(where: { $0 == Substring(key) }), i + 1 < words.count else { return nil }
        return Double(words[i + 1])
    }
}

/// The smallest difference of two angles in degrees.
func angleDifference(_ a: Double, _ b: Double) -> Double {
    var d = (a - b).truncatingRemainder(dividingBy: 360)
    if d > 180 { d -= 360 }
    if d < -180 { d += 360 }
    return abs(d)
}
