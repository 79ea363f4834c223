import Messaging

/// A named tilt threshold as Home Assistant sees it: a binary sensor on
/// `<prefix>/state/threshold/<name>` with the device class from config.
public struct ThresholdEntity: Sendable, Equatable {
    /// The threshold's name in config and topics (`door`).
    public var name: String
    /// Home Assistant binary-sensor device class (`door`, `garage_door`, `window`, …), or `nil`.
    public var deviceClass: String?

    public init(name: String, deviceClass: String?) {
        self.name = name
        self.deviceClass = deviceClass
    }
}

/// Buttons, tilt thresholds, connectivity/health and the pedometer's distance and pace.
extension HomeAssistantDiscovery {
    /// One button: object_id, name, the command it publishes (`cmd/<command>`), its action, icon,
    /// whether it needs `events.enabled` or a gyroscope, and whether it is a setting (entity
    /// category `config`: the device page's *Configuration* card) or an everyday control.
    struct Button: Sendable {
        var objectID: String
        var name: String
        var command: String
        var action: String
        var icon: String
        var needsEvents: Bool
        var needsGyroscope: Bool
        var isSetting: Bool
    }

    /// Every button the agent can announce (only with `control.enabled`: the agent obeys `cmd/…`
    /// only then, and the broker's ACL decides who may publish there).
    static let buttons: [Button] = [
        Button(objectID: "set_level", name: "Set level", command: "events", action: "set_level", icon: "mdi:angle-acute",
               needsEvents: true, needsGyroscope: false, isSetting: true),
        Button(objectID: "arm_tamper", name: "Arm tamper", command: "events", action: "arm_tamper", icon: "mdi:shield-lock",
               needsEvents: true, needsGyroscope: false, isSetting: false),
        Button(objectID: "disarm_tamper", name: "Disarm tamper", command: "events", action: "disarm_tamper",
               icon: "mdi:shield-off-outline", needsEvents: true, needsGyroscope: false, isSetting: false),
        Button(objectID: "calibrate_gyro", name: "Calibrate gyroscope", command: "calibrate", action: "gyro",
               icon: "mdi:axis-arrow", needsEvents: false, needsGyroscope: true, isSetting: true),
    ]

    /// The JSON a button publishes: `{"id":"home-assistant","action":"…"}` (the reply on
    /// `cmd/<command>/result` echoes the id).
    static func pressPayload(_ b: Button) -> String { #"{"id":"home-assistant","action":"\#(b.action)"}"# }

    /// Activity attributes: Core Motion's `confidence`, every flag and when the activity began.
    static let activityAttributesTemplate = "{{ {'confidence': value_json.confidence, 'stationary': value_json.stationary, "
        + "'walking': value_json.walking, 'running': value_json.running, 'cycling': value_json.cycling, "
        + "'automotive': value_json.automotive, 'unknown': value_json.unknown, 'start_utc': value_json.start_utc} | to_json }}"

    var buttonEntities: [HomeAssistantEntity] {
        Self.buttons.filter { (!$0.needsEvents || hasEvents) && (!$0.needsGyroscope || hasGyroscope) }.map { b in
            entity("button", b.objectID, [
                ("name", .string(b.name)),
                ("command_topic", .string(topics.prefix + "/cmd/" + b.command)),
                ("payload_press", .string(Self.pressPayload(b))),
                ("icon", .string(b.icon)),
            ] + (b.isSetting ? [("entity_category", DiscoveryJSON.string("config"))] : []))
        }
    }

    /// Object id of a threshold's binary sensor: `threshold_<name>` with characters outside
    /// `[A-Za-z0-9_-]` replaced (a threshold name may hold any letter).
    static func thresholdObjectID(_ name: String) -> String { "threshold_" + DeviceSettings.sanitize(name) }

    var thresholdEntities: [HomeAssistantEntity] {
        thresholds.map { t in
            entity("binary_sensor", Self.thresholdObjectID(t.name), [
                ("name", .string(t.name.prefix(1).uppercased() + t.name.dropFirst().replacingUnderscores)),
                ("state_topic", .string(topics.prefix + "/state/threshold/" + t.name)),
                ("value_template", .string("{{ 'ON' if value_json.on else 'OFF' }}")),
                ("json_attributes_topic", .string(topics.prefix + "/state/threshold/" + t.name)),
                ("json_attributes_template", .string("{{ {'state': value_json.state, 'tilt_deg': value_json.tilt_deg} | to_json }}")),
            ] + (t.deviceClass.map { [("device_class", DiscoveryJSON.string($0))] } ?? []))
        }
    }

    /// Connectivity (`<prefix>/status`, the retained status and MQTT last will; no availability
    /// of its own, so it reads *Disconnected* rather than *Unavailable*) and health (`<prefix>/health`
    /// `status` other than `ok` is a problem; its fields are the attributes).
    var healthEntities: [HomeAssistantEntity] {
        var connectivity = entity("binary_sensor", "connectivity", [
            ("name", .string("Connectivity")),
            ("state_topic", .string(topics.status)),
            ("payload_on", .string("online")),
            ("payload_off", .string("offline")),
            ("device_class", .string("connectivity")),
            ("entity_category", .string("diagnostic")),
        ])
        if case .object(let pairs) = connectivity.config { connectivity.config = .object(pairs.filter { $0.0 != "availability" }) }
        let health = entity("binary_sensor", "health", [
            ("name", .string("Health")),
            ("state_topic", .string(topics.health)),
            ("value_template", .string("{{ 'OFF' if value_json.status == 'ok' else 'ON' }}")),
            ("device_class", .string("problem")),
            ("json_attributes_topic", .string(topics.health)),
            // `.get`: `last_error` and `storage_error` are absent while there is none.
            ("json_attributes_template", .string("{{ {'status': value_json.status, 'source': value_json.source, 'mqtt': value_json.mqtt, "
                + "'storage': value_json.get('storage'), 'last_error': value_json.get('last_error'), "
                + "'dropped': value_json.dropped} | to_json }}")),
            ("entity_category", .string("diagnostic")),
        ])
        return [connectivity, health]
    }

    /// Distance (m, `total_increasing`: since the agent started) and current pace (min/km) from
    /// `<prefix>/pedometer` `distance_m` and `pace_s_per_m` (s/m × 1000 / 60 = min/km).
    var pedometerDistanceAndPace: [HomeAssistantEntity] {
        [
            entity("sensor", "distance", [
                ("name", .string("Distance")),
                ("state_topic", .string(topics.pedometer)),
                ("value_template", .string("{{ value_json.distance_m }}")),
                ("device_class", .string("distance")),
                ("unit_of_measurement", .string("m")),
                ("state_class", .string("total_increasing")),
                ("suggested_display_precision", .int(0)),
            ]),
            entity("sensor", "pace", [
                ("name", .string("Pace")),
                ("state_topic", .string(topics.pedometer)),
                ("value_template", .string("{{ (value_json.pace_s_per_m * 1000 / 60) | round(2) }}")),
                ("unit_of_measurement", .string("min/km")),
                ("state_class", .string("measurement")),
                ("suggested_display_precision", .int(1)),
                ("icon", .string("mdi:timer-outline")),
            ]),
        ]
    }
}

private extension Substring {
    var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
}

extension HomeAssistantDiscovery {
    /// `<discovery_prefix>/+/<node_id>/+/config`: every config of this device, any platform.
    public var ownConfigPattern: String { "\(settings.discoveryPrefix)/+/\(nodeID)/+/config" }

    /// Whether `topic` matches `ownConfigPattern`.
    public func isOwnConfigTopic(_ topic: String) -> Bool {
        let prefix = settings.discoveryPrefix + "/"
        guard topic.hasPrefix(prefix), topic.hasSuffix("/config") else { return false }
        let levels = topic.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        return levels.count == 4 && levels[1] == nodeID && !levels[0].isEmpty && !levels[2].isEmpty
    }

    /// Whether a config payload is one an EdgeMotion agent made for this device: a JSON object
    /// whose `unique_id` starts with `edgemotion_<node_id>_`.
    public func isOwnEntityConfig(_ payload: [UInt8]) -> Bool {
        guard payload.count <= 65_536, let value = try? JSONValue.parse(payload), let id = value.members?["unique_id"]?.string else {
            return false
        }
        return id.hasPrefix("edgemotion_\(nodeID)_")
    }
}
