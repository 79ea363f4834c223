/// Why a configuration could not be loaded: every problem found in the file, in file order.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is (the CLI maps it to an exit status).
    public enum Kind: Sendable, Equatable {
        /// The file could not be read (missing, permission, directory).
        case unreadable
        /// The text is not valid YAML; only the first syntax error is reported.
        case syntax
        /// Valid YAML, but keys or values are wrong; every such problem is reported.
        case invalid
    }

    public var kind: Kind
    public var diagnostics: [ConfigDiagnostic]

    public init(kind: Kind, diagnostics: [ConfigDiagnostic]) {
        self.kind = kind
        self.diagnostics = diagnostics
    }

    /// One diagnostic per line.
    public var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}
