#if canImport(Glibc)
import Glibc
#endif

/// Loads `AgentConfiguration` from YAML files (libyaml), checking every key and value.
///
/// An empty file, or one without some sections, gives the defaults for what is missing.
/// Problems are collected, not stopped at: a file with five mistakes reports five diagnostics
/// (sorted by position). Only a YAML syntax error stops parsing.
public enum ConfigurationLoader {
    /// Reads and parses the file at `path`. Throws `ConfigError` of kind `.unreadable` when the
    /// file cannot be read, `.syntax` for invalid YAML, `.invalid` listing every wrong key or value.
    public static func load(path: String) throws(ConfigError) -> AgentConfiguration {
        let bytes: [UInt8]
        switch readFile(path) {
        case .success(let b): bytes = b
        case .failure(let reason):
            throw ConfigError(kind: .unreadable, diagnostics: [
                ConfigDiagnostic(file: path, line: nil, column: nil, keyPath: "", message: "cannot read configuration: " + reason.description)
            ])
        }
        var config = try decode(YAMLParser.parse(bytes: bytes, fileName: path), fileName: path)
        config.sourceFile = path
        return config
    }

    /// Parses YAML text; `fileName` is used in diagnostics only.
    public static func parse(yaml: String, fileName: String) throws(ConfigError) -> AgentConfiguration {
        try decode(YAMLParser.parse(yaml, fileName: fileName), fileName: fileName)
    }

    private static func decode(_ root: YAMLNode?, fileName: String) throws(ConfigError) -> AgentConfiguration {
        var reader = ConfigReader(file: fileName)
        let config = AgentConfiguration(reading: root, with: &reader)
        guard reader.diagnostics.isEmpty else {
            let sorted = reader.diagnostics.enumerated().sorted { a, b in
                let ka = (a.element.line ?? 0, a.element.column ?? 0, a.offset)
                let kb = (b.element.line ?? 0, b.element.column ?? 0, b.offset)
                return ka < kb
            }.map(\.element)
            throw ConfigError(kind: .invalid, diagnostics: sorted)
        }
        return config
    }

    private struct ReadFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// The whole file's bytes, or the `strerror` text of why it cannot be read.
    private static func readFile(_ path: String) -> Result<[UInt8], ReadFailure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(ReadFailure(description: String(cString: strerror(errno)))) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(ReadFailure(description: String(cString: strerror(errno))))
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count > 1 << 20 { return .failure(ReadFailure(description: "file is larger than 1 MiB")) }
        }
        return .success(bytes)
    }
}
