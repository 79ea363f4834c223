import Foundation
@testable import Agent

/// Helpers shared by the Config* test suites.
enum ConfigTestSupport {
    /// The package root (`<repo>`), found from this file's path.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every diagnostic line for `yaml`, or `[]` when it loads.
    static func problems(_ yaml: String, file: String = "t.yaml") -> [String] {
        do {
            _ = try ConfigurationLoader.parse(yaml: yaml, fileName: file)
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    /// The error for `yaml`, or `nil` when it loads.
    static func error(_ yaml: String) -> ConfigError? {
        do {
            _ = try ConfigurationLoader.parse(yaml: yaml, fileName: "t.yaml")
            return nil
        } catch {
            return error
        }
    }

    /// Writes `text` to a fresh file in the temporary directory and returns its path.
    static func temporaryFile(_ text: String, name: String = "config.yaml") throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("edgemotion-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// Removes a file made by `temporaryFile` together with its directory.
    static func removeTemporaryFile(_ path: String) {
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: path).deletingLastPathComponent())
    }
}
