/// One problem found in a configuration file, with its position.
public struct ConfigDiagnostic: Sendable, Equatable, CustomStringConvertible {
    /// Path of the file (as given to the loader).
    public var file: String
    /// 1-based line, `nil` when the problem has no position (unreadable file).
    public var line: Int?
    /// 1-based column, `nil` when the problem has no position.
    public var column: Int?
    /// Dotted key path (`streams.accelerometer.rate`); empty for syntax and file errors.
    public var keyPath: String
    /// What is wrong and what is allowed.
    public var message: String

    public init(file: String, line: Int?, column: Int?, keyPath: String, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.keyPath = keyPath
        self.message = message
    }

    /// `config/demo.yaml:12:5: streams.accelerometer.rate: 20000 Hz is out of range; …`
    public var description: String {
        var text = file
        if let line {
            text += ":\(line)"
            if let column { text += ":\(column)" }
        }
        text += ": "
        if !keyPath.isEmpty { text += keyPath + ": " }
        return text + message
    }
}
