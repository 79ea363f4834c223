import Messaging
import MotionCore
import Sensors

/// Builds the retained Home Assistant MQTT discovery documents for one agent
/// (per-component discovery: `<discovery_prefix>/<component>/<node_id>/<object_id>/config`).
///
/// Every entity shares one `device` block (identifiers `edgemotion_<device_id>`), an `origin`
/// block, and `availability` on our retained `<prefix>/status` (`online` / `offline`, which is
/// also the MQTT last will). `unique_id` is `edgemotion_<device_id>_<object_id>`: stable across
/// restarts as long as `device.id` (or the host name) stays the same.
///
/// State topics:
/// - `<prefix>/summary` (this agent's throttled, deadbanded summary, ≤ 1 Hz): roll, pitch,
///   heading (degrees) and moving.
/// - `<prefix>/activity` (JSON field `activity`) and `<prefix>/pedometer` (JSON fields `steps`,
///   `cadence_steps_per_s`): published by the activity feature; the entities read those field names.
/// - `<prefix>/sensor/pressure|temperature|light|humidity` (JSON field `value`) and
///   `<prefix>/altitude` (`relative_altitude_m`): the `auxiliary:` sensors found (`auxiliaryKinds`).
/// - `<prefix>/meta` (`source.rate_hz`) and `<prefix>/stats` (`ring_drops`, `source_gaps`,
///   `mqtt_reconnects`): diagnostics; `<prefix>/status` (connectivity) and `<prefix>/health`.
/// - With `events.enabled`: `state/tilt`, `state/vibration`, `state/threshold/<name>` and
///   `events/motion` (HomeAssistantDiscovery+Control.swift for thresholds); its `orientation`
///   events (`events.orientation`) feed the Orientation event entity, one event type per face.
/// - Buttons (only with `control.enabled`) publish to `cmd/events` and `cmd/calibrate`.
public struct HomeAssistantDiscovery: Sendable {
    /// Core Motion's activity classes, in the order Home Assistant lists them.
    public static let activityOptions = ["stationary", "walking", "running", "cycling", "automotive", "unknown"]

    public let settings: HomeAssistantSettings
    public let deviceID: String
    public let topics: TopicLayout
    /// `device.model`: the IMU chip (`mpu6050`, `bmi160`), or `simulator` / `recording`; see
    /// `model(sourceName:)`.
    public let model: String
    /// Whether `heading` is announced (a north-referenced frame with a magnetometer).
    public let hasHeading: Bool
    /// The `auxiliary:` kinds read (pressure also announces the relative altitude).
    public var auxiliaryKinds: [AuxiliaryKind] = []

    /// Whether the motion-event entities (tilt, vibration RMS, running) are announced
    /// (`events.enabled`: their `state/tilt` and `state/vibration` topics are published).
    public let hasEvents: Bool
    /// `events.vibration.spectrum.enabled` (with `hasEvents`): the spectrum's peak frequency is
    /// announced as a diagnostic sensor.
    public var hasSpectrum = false
    /// `events.orientation` (with `hasEvents`): the 6D orientation event entity is announced.
    public var hasOrientation = false
    /// The named tilt thresholds (`events.thresholds`), each a binary sensor; with `hasEvents`.
    public var thresholds: [ThresholdEntity] = []
    /// `control.enabled`: the agent obeys `cmd/…`, so the command buttons are announced.
    public var hasControl = false
    /// The source has a gyroscope (the "Calibrate gyroscope" button).
    public var hasGyroscope = true
    /// `device.configuration_url`: the dashboard's address (`http.enabled`), or `nil`.
    public var configurationURL: String?

    public init(settings: HomeAssistantSettings, deviceID: String, topics: TopicLayout, model: String, hasHeading: Bool,
                hasEvents: Bool = false) {
        self.hasEvents = hasEvents
        self.settings = settings
        self.deviceID = deviceID
        self.topics = topics
        self.model = model
        self.hasHeading = hasHeading
    }

    /// The chip named by a source's report (`SourceCapabilities.name`): `iio:bmi160` → `bmi160`,
    /// `i2c-1:0x68:mpu6050` → `mpu6050`; `simulator:<scenario>` → `simulator` and `replay:<file>`
    /// → `recording` (a scenario or file name is no model). Anything else is used as it is.
    public static func model(sourceName: String) -> String {
        let fields = sourceName.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count >= 2, let kind = fields.first else { return sourceName }
        if kind == "simulator" { return "simulator" }
        if kind == "replay" { return "recording" }
        if kind == "iio" || kind.hasPrefix("i2c"), let chip = fields.last, !chip.isEmpty { return String(chip) }
        return sourceName
    }

    /// `<prefix>/summary`.
    public var summaryTopic: String { topics.summary }
    /// `<discovery_prefix>/status`: Home Assistant's birth (`online`) and will (`offline`).
    public var birthTopic: String { TopicLayout.homeAssistantStatus(discoveryPrefix: settings.discoveryPrefix) }
    /// Discovery `node_id` level: the device id (already restricted to `[A-Za-z0-9_-]`).
    public var nodeID: String { DeviceSettings.sanitize(deviceID) }

    /// Every entity, in announcement order.
    public var entities: [HomeAssistantEntity] {
        var list: [HomeAssistantEntity] = []
        list.append(entity("sensor", "activity", [
            ("name", .string("Activity")),
            ("state_topic", .string(topics.activity)),
            ("value_template", .string("{{ value_json.activity }}")),
            ("device_class", .string("enum")),
            ("options", .array(Self.activityOptions.map { .string($0) })),
            ("icon", .string("mdi:run")),
            // Core Motion's confidence and every flag (several can be true at once: automotive
            // and stationary at a red light) as attributes of the one activity entity.
            ("json_attributes_topic", .string(topics.activity)),
            ("json_attributes_template", .string(Self.activityAttributesTemplate)),
        ]))
        list.append(entity("binary_sensor", "moving", [
            ("name", .string("Moving")),
            ("state_topic", .string(summaryTopic)),
            ("value_template", .string("{{ 'ON' if value_json.moving else 'OFF' }}")),
            ("device_class", .string("moving")),
        ] + expiry))
        list.append(entity("sensor", "steps", [
            ("name", .string("Steps")),
            ("state_topic", .string(topics.pedometer)),
            ("value_template", .string("{{ value_json.steps }}")),
            ("unit_of_measurement", .string("steps")),
            ("state_class", .string("total_increasing")),
            ("icon", .string("mdi:shoe-print")),
        ]))
        list.append(entity("sensor", "cadence", [
            ("name", .string("Cadence")),
            ("state_topic", .string(topics.pedometer)),
            ("value_template", .string("{{ value_json.cadence_steps_per_s }}")),
            ("unit_of_measurement", .string("steps/s")),
            ("state_class", .string("measurement")),
            ("suggested_display_precision", .int(2)),
            ("icon", .string("mdi:metronome")),
        ]))
        list += pedometerDistanceAndPace
        list.append(angle("roll", "Roll", "roll_deg", "mdi:horizontal-rotate-clockwise"))
        list.append(angle("pitch", "Pitch", "pitch_deg", "mdi:rotate-right"))
        // A compass heading is circular: `measurement_angle` makes Home Assistant's statistics
        // average it as an angle (the mean of 350° and 10° is 0°, not 180°).
        if hasHeading { list.append(angle("heading", "Heading", "heading_deg", "mdi:compass", stateClass: "measurement_angle")) }
        if hasEvents { list += eventEntities + thresholdEntities }
        if hasEvents, hasSpectrum { list.append(spectrumEntity) }
        if hasEvents, hasOrientation { list.append(orientationEntity) }
        if hasControl { list += buttonEntities }
        list += auxiliaryEntities
        list += healthEntities
        list.append(entity("sensor", "sample_rate", [
            ("name", .string("Sample rate")),
            ("state_topic", .string(topics.meta)),
            ("value_template", .string("{{ value_json.source.rate_hz }}")),
            ("device_class", .string("frequency")),
            ("unit_of_measurement", .string("Hz")),
            ("state_class", .string("measurement")),
            ("entity_category", .string("diagnostic")),
        ]))
        list.append(entity("sensor", "dropped_samples", [
            ("name", .string("Dropped samples")),
            ("state_topic", .string(topics.stats)),
            ("value_template", .string("{{ value_json.ring_drops + value_json.source_gaps }}")),
            ("state_class", .string("total_increasing")),
            ("entity_category", .string("diagnostic")),
            ("icon", .string("mdi:alert-circle-outline")),
        ]))
        list.append(entity("sensor", "mqtt_reconnects", [
            ("name", .string("MQTT reconnects")),
            ("state_topic", .string(topics.stats)),
            ("value_template", .string("{{ value_json.mqtt_reconnects }}")),
            ("state_class", .string("total_increasing")),
            ("entity_category", .string("diagnostic")),
            ("icon", .string("mdi:lan-disconnect")),
        ]))
        return list
    }

    /// Config topics of entities this agent can announce but does not in its current
    /// configuration (today: `heading` without a north-referenced frame and a magnetometer).
    /// Derived from the configuration, so no state is kept: `announce` publishes an empty retained
    /// payload to each, which makes Home Assistant remove an entity a previous run announced
    /// (e.g. after `fusion.reference_frame` changed away from a north frame).
    public var retiredConfigTopics: [String] {
        let announced = Set(entities.map(\.configTopic))
        return ((hasHeading ? [] : [configTopic("sensor", "heading")])
            + (hasEvents ? [] : Self.eventEntityIDs.map { configTopic($0.component, $0.objectID) })
            + [configTopic("sensor", "vibration_peak_frequency"), configTopic("event", "orientation")]
            + Self.buttons.map { configTopic("button", $0.objectID) })
            .filter { !announced.contains($0) }
    }

    /// The entities fed by the motion-event feature, as (component, object_id).
    static let eventEntityIDs: [(component: String, objectID: String)] = [
        ("sensor", "tilt"), ("sensor", "vibration_rms"), ("binary_sensor", "running"),
    ] + motionEventEntities.map { ("event", $0.objectID) }

    /// HA `event` entities fed from `<prefix>/events/motion`: object_id, name and the event
    /// `type`s (docs/topics.md) each one fires.
    static let motionEventEntities: [(objectID: String, name: String, types: [String])] = [
        ("shock", "Shock", ["shock"]),
        ("free_fall", "Free fall", ["free_fall"]),
        ("tamper", "Tamper", ["tamper"]),
        ("tap", "Tap", ["tap", "double_tap"]),
    ]

    /// The faces an `orientation` event can name (`face`; `unknown` is only ever `previous`).
    static let orientationFaces = DeviceFace.allCases.filter { $0 != .unknown }.map(\.name)

    /// 6D orientation (`events/motion` `type: orientation`): an `event` entity whose event type is
    /// the face now up, so an automation triggers on "turned face down"; the event's fields
    /// (`previous`, `onset_s`, `source`) become attributes. HA's event entity, not a sensor: the
    /// face is published only when it changes (no retained state topic to read at start).
    private var orientationEntity: HomeAssistantEntity {
        entity("event", "orientation", [
            ("name", .string("Orientation")),
            ("state_topic", .string(topics.event("motion"))),
            ("value_template", .string("{% if value_json.type == 'orientation' %}{{ dict(value_json, event_type=value_json.face) | to_json }}{% endif %}")),
            ("event_types", .array(Self.orientationFaces.map { .string($0) })),
            ("icon", .string("mdi:screen-rotation")),
        ])
    }

    /// The vibration spectrum's strongest line (`<prefix>/vibration/spectrum` `peak_hz`): what a
    /// machine's speed or a fan's blade rate is; diagnostic (the spectrum itself is an array HA
    /// cannot show as a sensor; its bins are the attributes).
    private var spectrumEntity: HomeAssistantEntity {
        let topic = topics.vibrationSpectrum
        return entity("sensor", "vibration_peak_frequency", [
            ("name", .string("Vibration peak frequency")),
            ("state_topic", .string(topic)),
            ("value_template", .string("{{ value_json.peak_hz }}")),
            ("json_attributes_topic", .string(topic)),
            ("unit_of_measurement", .string("Hz")),
            ("device_class", .string("frequency")),
            ("state_class", .string("measurement")),
            ("suggested_display_precision", .int(1)),
            ("entity_category", .string("diagnostic")),
            ("icon", .string("mdi:sine-wave")),
        ])
    }

    /// Tilt from the zero pose (`<prefix>/state/tilt` `tilt_deg`), vibration RMS and the running
    /// state (`<prefix>/state/vibration` `rms_ms2`, `running`); see docs/topics.md.
    private var eventEntities: [HomeAssistantEntity] {
        let tiltTopic = topics.state("tilt")
        let vibrationTopic = topics.state("vibration")
        return [
            entity("sensor", "tilt", [
                ("name", .string("Tilt")),
                ("state_topic", .string(tiltTopic)),
                ("value_template", .string("{{ value_json.tilt_deg }}")),
                ("unit_of_measurement", .string("°")),
                ("state_class", .string("measurement")),
                ("suggested_display_precision", .int(1)),
                ("icon", .string("mdi:angle-acute")),
            ]),
            entity("sensor", "vibration_rms", [
                ("name", .string("Vibration RMS")),
                ("state_topic", .string(vibrationTopic)),
                ("value_template", .string("{{ value_json.rms_ms2 }}")),
                ("unit_of_measurement", .string("m/s²")),
                ("state_class", .string("measurement")),
                ("suggested_display_precision", .int(2)),
                ("icon", .string("mdi:vibrate")),
            ]),
            entity("binary_sensor", "running", [
                ("name", .string("Running")),
                ("state_topic", .string(vibrationTopic)),
                ("value_template", .string("{{ 'ON' if value_json.running else 'OFF' }}")),
                ("device_class", .string("running")),
            ]),
        ] + Self.motionEventEntities.map { e in
            // The template renders `{"event_type": …}` (HA's event payload) for this entity's
            // types and nothing otherwise (HA ignores an empty rendered payload); the event's
            // own fields (peak_g, duration_s, …) become attributes.
            let list = e.types.map { "'\($0)'" }.joined(separator: ",")
            return entity("event", e.objectID, [
                ("name", .string(e.name)),
                ("state_topic", .string(topics.event("motion"))),
                ("value_template", .string("{% if value_json.type in [\(list)] %}{{ dict(value_json, event_type=value_json.type) | to_json }}{% endif %}")),
                ("event_types", .array(e.types.map { .string($0) })),
            ])
        }
    }

    func configTopic(_ component: String, _ objectID: String) -> String {
        TopicLayout.homeAssistantConfig(discoveryPrefix: settings.discoveryPrefix, component: component, nodeID: nodeID, objectID: objectID)
    }

    /// One sensor per auxiliary kind (Home Assistant device classes pressure / temperature /
    /// illuminance / humidity in kPa / °C / lx / %), plus the relative altitude in m with pressure.
    private var auxiliaryEntities: [HomeAssistantEntity] {
        var list: [HomeAssistantEntity] = []
        for kind in auxiliaryKinds {
            let (name, deviceClass, precision): (String, String, Int) = switch kind {
            case .pressure: ("Pressure", "pressure", 3)
            case .temperature: ("Temperature", "temperature", 1)
            case .light: ("Illuminance", "illuminance", 0)
            case .humidity: ("Humidity", "humidity", 1)
            }
            list.append(entity("sensor", kind.rawValue, [
                ("name", .string(name)),
                ("state_topic", .string(topics.sensor(kind.topic))),
                ("value_template", .string("{{ value_json.value }}")),
                ("device_class", .string(deviceClass)),
                ("unit_of_measurement", .string(kind.unit)),
                ("state_class", .string("measurement")),
                ("suggested_display_precision", .int(precision)),
            ]))
            if kind == .pressure {
                list.append(entity("sensor", "relative_altitude", [
                    ("name", .string("Relative altitude")),
                    ("state_topic", .string(topics.altitude)),
                    ("value_template", .string("{{ value_json.relative_altitude_m }}")),
                    ("device_class", .string("distance")),
                    ("unit_of_measurement", .string("m")),
                    ("state_class", .string("measurement")),
                    ("suggested_display_precision", .int(1)),
                    ("icon", .string("mdi:elevation-rise")),
                ]))
            }
        }
        return list
    }

    var expiry: [(String, DiscoveryJSON)] {
        settings.expireAfterSeconds > 0 ? [("expire_after", .int(settings.expireAfterSeconds))] : []
    }

    private func angle(_ id: String, _ name: String, _ field: String, _ icon: String,
                       stateClass: String = "measurement") -> HomeAssistantEntity {
        entity("sensor", id, [
            ("name", .string(name)),
            ("state_topic", .string(summaryTopic)),
            ("value_template", .string("{{ value_json.\(field) }}")),
            ("unit_of_measurement", .string("°")),
            ("state_class", .string(stateClass)),
            ("suggested_display_precision", .int(1)),
            ("icon", .string(icon)),
        ] + expiry)
    }

    func entity(_ component: String, _ objectID: String, _ fields: [(String, DiscoveryJSON)]) -> HomeAssistantEntity {
        var pairs: [(String, DiscoveryJSON)] = [("unique_id", .string("edgemotion_\(nodeID)_\(objectID)"))]
        pairs += fields
        pairs += [
            ("availability", .array([.object([
                ("topic", .string(topics.status)),
                ("payload_available", .string("online")),
                ("payload_not_available", .string("offline")),
            ])])),
            ("qos", .int(1)),
            ("device", device),
            ("origin", origin),
        ]
        return HomeAssistantEntity(component: component, objectID: objectID,
                                   configTopic: configTopic(component, objectID),
                                   config: .object(pairs))
    }

    private var device: DiscoveryJSON {
        .object([
            ("identifiers", .array([.string("edgemotion_\(nodeID)")])),
            ("name", .string("EdgeMotion \(deviceID)")),
            ("manufacturer", .string("EdgeMotion")),
            ("model", .string(model)),
            ("sw_version", .string(CommandLineTool.version)),
        ] + (configurationURL.map { [("configuration_url", DiscoveryJSON.string($0))] } ?? []))
    }

    private var origin: DiscoveryJSON {
        .object([
            ("name", .string("edgemotion")),
            ("sw_version", .string(CommandLineTool.version)),
        ])
    }
}
