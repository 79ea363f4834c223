import Logging

extension LoggingSettings {
    static let keys = ["level"]

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        let name = reader.choice(section, "level", default: level.name, oneOf: LogLevel.allCases.map(\.name), ignoringCase: true)
        level = LogLevel(name: name) ?? level
    }
}
