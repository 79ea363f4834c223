/// The agent's whole configuration: the root of the YAML file (`config/edgemotion.yaml` documents
/// every key). Every section has defaults, so an empty file is a valid configuration.
public struct AgentConfiguration: Sendable, Equatable {
    /// `device:` — identity used in topics and `meta`.
    public var device: DeviceSettings
    /// `source:` — where IMU samples come from.
    public var source: SourceSettings
    /// `streams:` — which streams are published, at what rates.
    public var streams: StreamSettingsSet
    /// `fusion:` — attitude filter and reference frame.
    public var fusion: FusionSettings
    /// `mqtt:` — broker connection and topics.
    public var mqtt: MQTTSettings
    /// `logging:` — log threshold.
    public var logging: LoggingSettings
    /// `outbox:` — bounds of the buffer between pipeline and broker.
    public var outbox: OutboxConfiguration
    /// `spool:` — the on-disk spool of events.
    public var spool: SpoolConfiguration
    /// `control:` — run-time commands over MQTT.
    public var control: ControlSettings
    /// `process:` — stop deadline.
    public var process: ProcessSettings
    /// `debug:` — test aids.
    public var debug: DebugSettings
    /// `state_directory:` — where the agent keeps calibration and other state (path).
    public var stateDirectory: String
    /// `home_assistant:` — Home Assistant MQTT discovery (off by default).
    public var homeAssistant = HomeAssistantSettings()
    /// `activity:` — activity detection, pedometer and their history.
    public var activity = ActivitySettings()
    /// `recorder:` — raw sample recording to rotating files (off by default).
    public var recorder = RecorderSettings()
    /// `events:` — motion events, vibration and tilt thresholds (off by default).
    public var events = EventSettings()
    /// `http:` — the web dashboard and Prometheus `/metrics` (off by default).
    public var http = HTTPSettings()
    /// `auxiliary:` environmental IIO sensors (off by default).
    public var auxiliary = AuxiliarySettings()
    /// Path the configuration was loaded from; `nil` for defaults or parsed text. Not a key.
    public var sourceFile: String?

    public init(
        device: DeviceSettings = DeviceSettings(),
        source: SourceSettings = SourceSettings(),
        streams: StreamSettingsSet = StreamSettingsSet(),
        fusion: FusionSettings = FusionSettings(),
        mqtt: MQTTSettings = MQTTSettings(),
        logging: LoggingSettings = LoggingSettings(),
        stateDirectory: String = AgentConfiguration.defaultStateDirectory,
        sourceFile: String? = nil,
        outbox: OutboxConfiguration = OutboxConfiguration(),
        spool: SpoolConfiguration = SpoolConfiguration(),
        control: ControlSettings = ControlSettings(),
        process: ProcessSettings = ProcessSettings(),
        debug: DebugSettings = DebugSettings()
    ) {
        self.outbox = outbox
        self.spool = spool
        self.control = control
        self.process = process
        self.debug = debug
        self.device = device
        self.source = source
        self.streams = streams
        self.fusion = fusion
        self.mqtt = mqtt
        self.logging = logging
        self.stateDirectory = stateDirectory
        self.sourceFile = sourceFile
    }

    /// Default for `state_directory`.
    public static let defaultStateDirectory = "/var/lib/edgemotion"

    /// Every default: simulator at 200 Hz, all streams on, no broker.
    public static let `default` = AgentConfiguration()

    /// `mqtt.topic_prefix` with `{device_id}` replaced by `device.resolvedID()`.
    public var resolvedTopicPrefix: String {
        mqtt.resolvedTopicPrefix(deviceID: device.resolvedID())
    }
}
