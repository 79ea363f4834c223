import Foundation
import Testing
import MotionCore
import TestSupport
@testable import Agent

/// `state_directory/events-zero`, the zero pose "set level" keeps across restarts
/// (docs/events.md): read back as written, absent means "never set", and a damaged file is an
/// error naming the file and what is wrong (the agent logs it and measures tilt from level).
@Suite("Events zero-pose file")
struct EventsZeroFileTests {
    func write(_ text: String, _ dir: String) throws -> String {
        let path = dir + "/events-zero"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aWrittenZeroIsReadBackAndNoFileMeansNone() throws {
        let dir = try Reliability.tempDirectory("events-zero")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try ZeroPoseFile.read(stateDirectory: dir) == nil)
        // A board tilted 30° about x: up = (0, sin 30°, cos 30°) = (0, 0.5, 0.8660254).
        let zero = try #require({ _ = try write("0.0 0.5 0.8660254\n", dir); return try ZeroPoseFile.read(stateDirectory: dir) }())
        #expect(zero.x == 0 && zero.y == 0.5 && zero.z == 0.8660254)
    }

    @Test(arguments: [
        ("garbage\n", "expected three numbers"),
        ("0 0\n", "expected three numbers"),
        ("0 0 1 x\n", "expected three numbers"),
        ("nan 0 1\n", "expected three numbers"),
        ("0 0 5\n", "has length 5"),
        ("0 0 0\n", "has length 0"),
    ])
    func aDamagedZeroIsAnErrorNamingTheFile(text: String, problem: String) throws {
        let dir = try Reliability.tempDirectory("events-zero-bad")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try write(text, dir)
        #expect {
            _ = try ZeroPoseFile.read(stateDirectory: dir)
        } throws: { error in
            let text = "\(error)"
            return text.contains(path) && text.contains(problem)
        }
    }

    @Test func aDirectoryInItsPlaceIsAnErrorNamingIt() throws {
        let dir = try Reliability.tempDirectory("events-zero-dir")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/events-zero", withIntermediateDirectories: false)
        #expect {
            _ = try ZeroPoseFile.read(stateDirectory: dir)
        } throws: { error in "\(error)".contains(dir + "/events-zero") }
    }
}
