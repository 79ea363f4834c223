extension DeviceSettings {
    static let keys = ["id"]

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        id = reader.optionalString(section, "id") { id in
            DeviceSettings.isValid(id: id) ? nil
                : "'\(id)' is not a valid device id; use 1…64 letters, digits, '_' or '-' (it becomes part of MQTT topics)"
        }
    }
}
