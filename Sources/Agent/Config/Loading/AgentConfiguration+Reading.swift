extension AgentConfiguration {
    /// Keys allowed at the top level of the file.
    static let keys = ["device", "source", "streams", "fusion", "mqtt", "logging", "state_directory",
                       "outbox", "spool", "control", "process", "debug", "home_assistant", "activity", "recorder", "events", "http", "auxiliary"]

    /// Reads the whole file from its root node (`nil` for an empty file), then runs the checks
    /// that involve several keys.
    init(reading root: YAMLNode?, with reader: inout ConfigReader) {
        self.init()
        if let root, !root.isNull, case .scalar = root.content {
            reader.report("", at: root.mark, "expected 'key: value' lines at the top level (\(AgentConfiguration.keys.joined(separator: ", "))), found \(root.summary)")
            return
        }
        let top = reader.section(root, path: "", keys: AgentConfiguration.keys)
        device = DeviceSettings(reading: reader.section(top?["device"], path: "device", keys: DeviceSettings.keys), with: &reader)
        source = SourceSettings(reading: reader.section(top?["source"], path: "source", keys: SourceSettings.keys), with: &reader)
        streams = StreamSettingsSet(reading: reader.section(top?["streams"], path: "streams", keys: StreamSettingsSet.keys), with: &reader)
        fusion = FusionSettings(reading: reader.section(top?["fusion"], path: "fusion", keys: FusionSettings.keys), with: &reader)
        mqtt = MQTTSettings(reading: reader.section(top?["mqtt"], path: "mqtt", keys: MQTTSettings.keys), with: &reader)
        logging = LoggingSettings(reading: reader.section(top?["logging"], path: "logging", keys: LoggingSettings.keys), with: &reader)
        activity = ActivitySettings(reading: reader.section(top?["activity"], path: "activity", keys: ActivitySettings.keys), with: &reader)
        homeAssistant = HomeAssistantSettings(reading: reader.section(top?["home_assistant"], path: "home_assistant", keys: HomeAssistantSettings.keys), with: &reader)
        events = EventSettings(reading: reader.section(top?["events"], path: "events", keys: EventSettings.keys), with: &reader)
        recorder = RecorderSettings(reading: reader.section(top?["recorder"], path: "recorder", keys: RecorderSettings.keys), with: &reader)
        http = HTTPSettings(reading: reader.section(top?["http"], path: "http", keys: HTTPSettings.keys), with: &reader)
        auxiliary = AuxiliarySettings(reading: reader.section(top?["auxiliary"], path: "auxiliary", keys: AuxiliarySettings.keys), with: &reader)
        stateDirectory = reader.string(top, "state_directory", default: AgentConfiguration.defaultStateDirectory)
        outbox = OutboxConfiguration(reading: reader.section(top?["outbox"], path: "outbox", keys: OutboxConfiguration.keys), with: &reader)
        spool = SpoolConfiguration(reading: reader.section(top?["spool"], path: "spool", keys: SpoolConfiguration.keys), with: &reader)
        control = ControlSettings(reading: reader.section(top?["control"], path: "control", keys: ControlSettings.keys), with: &reader)
        process = ProcessSettings(reading: reader.section(top?["process"], path: "process", keys: ProcessSettings.keys), with: &reader)
        debug = DebugSettings(reading: reader.section(top?["debug"], path: "debug", keys: DebugSettings.keys), with: &reader)
        checkCombinations(with: &reader)
        resolveChipMotion(with: &reader)
        checkHomeAssistant(with: &reader)
        checkRecorder(with: &reader)
    }
}
