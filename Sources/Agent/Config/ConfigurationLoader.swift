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
        do throws(FileError) { bytes = try WholeFile.bytes(atPath: path) } catch {
            throw ConfigError(kind: .unreadable, diagnostics: [
                ConfigDiagnostic(file: path, line: nil, column: nil, keyPath: "", message: "cannot read configuration: " + error.description)
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
}
