import Foundation

/// Home Assistant's MQTT discovery rules for the platforms we announce, transcribed from the
/// integration's documentation (home-assistant.io `mqtt.markdown`, `sensor.mqtt.markdown`,
/// `binary_sensor.mqtt.markdown`, `event.mqtt.markdown`, `button.mqtt.markdown`) and HA core's
/// `SensorDeviceClass` / `BinarySensorDeviceClass` / `ButtonDeviceClass`. The button rules follow
/// `homeassistant/components/mqtt/button.py` (`PLATFORM_SCHEMA_MODERN`: `command_topic` required
/// and a valid publish topic, `payload_press` a string defaulting to `PRESS`, `retain`,
/// `command_template`, `device_class` one of identify/restart/update; no state topic) and
/// `home-assistant.io/integrations/button.mqtt` ("Configuration Variables").
/// `problems(topic:payload:)` returns every rule a discovery message breaks (empty = accepted).
enum HomeAssistantSchema {
    /// Abbreviations HA expands before validating (a subset of `abbreviations.py` that covers
    /// every key a sensor or binary_sensor may carry).
    static let abbreviations: [String: String] = [
        "avty": "availability", "avty_mode": "availability_mode", "avty_t": "availability_topic",
        "avty_tpl": "availability_template", "dev": "device", "dev_cla": "device_class", "en": "enabled_by_default",
        "ent_cat": "entity_category", "ent_pic": "entity_picture", "exp_aft": "expire_after", "frc_upd": "force_update",
        "ic": "icon", "json_attr_t": "json_attributes_topic", "json_attr_tpl": "json_attributes_template",
        "lrst_val_tpl": "last_reset_value_template", "o": "origin", "obj_id": "object_id", "def_ent_id": "default_entity_id",
        "ops": "options", "off_dly": "off_delay", "pl_avail": "payload_available", "pl_not_avail": "payload_not_available",
        "pl_on": "payload_on", "pl_off": "payload_off", "p": "platform", "stat_cla": "state_class", "stat_t": "state_topic",
        "sug_dsp_prc": "suggested_display_precision", "uniq_id": "unique_id", "unit_of_meas": "unit_of_measurement",
        "val_tpl": "value_template", "t": "topic", "cmd_t": "command_topic", "cmd_tpl": "command_template",
        "pl_prs": "payload_press", "ret": "retain",
    ]
    static let deviceAbbreviations: [String: String] = [
        "ids": "identifiers", "cns": "connections", "mf": "manufacturer", "mdl": "model", "mdl_id": "model_id",
        "sw": "sw_version", "hw": "hw_version", "sa": "suggested_area", "cu": "configuration_url", "sn": "serial_number",
        "via_device": "via_device", "name": "name",
    ]
    static let originAbbreviations: [String: String] = ["name": "name", "sw": "sw_version", "url": "support_url"]

    static let commonKeys: Set<String> = [
        "availability", "availability_mode", "availability_template", "availability_topic", "device", "device_class",
        "enabled_by_default", "encoding", "entity_category", "entity_picture", "expire_after", "force_update", "icon",
        "json_attributes_template", "json_attributes_topic", "name", "object_id", "default_entity_id", "origin",
        "payload_available", "payload_not_available", "platform", "qos", "state_topic", "unique_id", "value_template",
        "~",
    ]
    static let keysByComponent: [String: Set<String>] = [
        "sensor": commonKeys.union(["last_reset_value_template", "options", "state_class", "suggested_display_precision",
                                    "unit_of_measurement"]),
        "binary_sensor": commonKeys.union(["off_delay", "payload_off", "payload_on"]),
        // MQTT event (home-assistant.io/integrations/event.mqtt): stateless, `event_types` required,
        // no expire_after / force_update.
        "event": commonKeys.subtracting(["expire_after", "force_update"]).union(["event_types"]),
        // MQTT button: stateless, commanded only.
        "button": commonKeys.subtracting(["expire_after", "force_update", "state_topic", "value_template"])
            .union(["command_topic", "command_template", "payload_press", "retain"]),
    ]
    static let buttonDeviceClasses: Set<String> = ["identify", "restart", "update"]
    static let sensorDeviceClasses: Set<String> = [
        "apparent_power", "aqi", "area", "atmospheric_pressure", "battery", "blood_glucose_concentration", "carbon_dioxide",
        "carbon_monoxide", "conductivity", "current", "data_rate", "data_size", "date", "distance", "duration", "energy",
        "energy_distance", "energy_storage", "enum", "frequency", "gas", "humidity", "illuminance", "irradiance", "moisture",
        "monetary", "nitrogen_dioxide", "nitrogen_monoxide", "nitrous_oxide", "ozone", "ph", "pm1", "pm10", "pm25",
        "power_factor", "power", "precipitation", "precipitation_intensity", "pressure", "reactive_power",
        "signal_strength", "sound_pressure", "speed", "sulphur_dioxide", "temperature", "timestamp",
        "volatile_organic_compounds", "volatile_organic_compounds_parts", "voltage", "volume", "volume_storage",
        "volume_flow_rate", "water", "weight", "wind_direction", "wind_speed",
    ]
    static let binarySensorDeviceClasses: Set<String> = [
        "battery", "battery_charging", "carbon_monoxide", "cold", "connectivity", "door", "garage_door", "gas", "heat",
        "light", "lock", "moisture", "motion", "moving", "occupancy", "opening", "plug", "power", "presence", "problem",
        "running", "safety", "smoke", "sound", "tamper", "update", "vibration", "window",
    ]
    /// Attribute names Home Assistant's MQTT integration drops from what `json_attributes_topic` /
    /// `json_attributes_template` deliver (`MQTT_ATTRIBUTES_BLOCKED`, `homeassistant/components/mqtt/mixins.py`
    /// in 2024.3, `entity.py` in 2025; the union of both: 2025 adds `friendly_name` and
    /// `context_recent_time`). An attribute named so never reaches the entity, silently.
    static let blockedAttributes: Set<String> = [
        "assumed_state", "available", "context_recent_time", "device_class", "device_info", "entity_category",
        "entity_picture", "entity_registry_enabled_default", "extra_state_attributes", "force_update", "friendly_name",
        "icon", "name", "should_poll", "state", "supported_features", "unique_id", "unit_of_measurement",
    ]
    /// The attribute names a `json_attributes_template` of the form `{{ {'name': …, …} | to_json }}` renders.
    static func attributeNames(_ template: String) -> [String] {
        var names: [String] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "'") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "'") else { break }
            let name = after[..<close]
            let tail = after[after.index(after: close)...]
            if tail.hasPrefix(":") && !name.isEmpty && name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) { names.append(String(name)) }
            rest = tail
        }
        return names
    }
    static let stateClasses: Set<String> = ["measurement", "measurement_angle", "total", "total_increasing"]
    /// `UnitOfFrequency` (2025.4.4): no `mHz` — Home Assistant 2025.4.4 warned "The unit of measurement
    /// `mHz` is not valid together with device class `frequency`. this will stop working in HA Core
    /// 2025.7.0" when the sample rate was announced so (scripts/ha-check --release 2025.4).
    static let frequencyUnits: Set<String> = ["Hz", "kHz", "MHz", "GHz"]
    /// HA core `DEVICE_CLASS_UNITS` (homeassistant/components/sensor/const.py) for the classes the
    /// auxiliary sensors use.
    static let deviceClassUnits: [String: Set<String>] = [
        "pressure": ["cbar", "bar", "hPa", "mmHg", "inHg", "kPa", "mbar", "Pa", "psi"],
        "temperature": ["°C", "°F", "K"],
        "illuminance": ["lx"],
        "humidity": ["%"],
        "distance": ["km", "m", "cm", "mm", "mi", "nmi", "yd", "in", "ft"],
    ]

    private static func isIDLevel(_ s: Substring) -> Bool {
        !s.isEmpty && s.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) && $0.isASCII || $0 == "_" || $0 == "-" }
    }

    /// Expands abbreviated keys at the top level, in `device`, `origin` and availability items.
    static func expand(_ json: [String: Any]) -> [String: Any] {
        var out: [String: Any] = [:]
        for (k, v) in json {
            let key = abbreviations[k] ?? k
            switch key {
            case "device": out[key] = ((v as? [String: Any]) ?? [:]).reduce(into: [String: Any]()) { $0[deviceAbbreviations[$1.key] ?? $1.key] = $1.value }
            case "origin": out[key] = ((v as? [String: Any]) ?? [:]).reduce(into: [String: Any]()) { $0[originAbbreviations[$1.key] ?? $1.key] = $1.value }
            case "availability":
                out[key] = ((v as? [[String: Any]]) ?? []).map { item in
                    item.reduce(into: [String: Any]()) { $0[abbreviations[$1.key] ?? $1.key] = $1.value }
                }
            default: out[key] = v
            }
        }
        return out
    }

    /// Every rule the discovery message breaks; `statusTopic` is the availability topic expected.
    static func problems(topic: String, payload: [UInt8], statusTopic: String, discoveryPrefix: String = "homeassistant") -> [String] {
        var p: [String] = []
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        let prefixLevels = discoveryPrefix.split(separator: "/").count
        guard topic.hasPrefix(discoveryPrefix + "/"), levels.last == "config",
              levels.count == prefixLevels + 4 || levels.count == prefixLevels + 3 else {
            return ["topic \(topic) is not <prefix>/<component>/[<node_id>/]<object_id>/config"]
        }
        let component = String(levels[prefixLevels])
        guard let allowed = keysByComponent[component] else { return ["component \(component) is not one we know the rules of"] }
        for level in levels[(prefixLevels + 1)..<(levels.count - 1)] where !isIDLevel(level) {
            p.append("node_id/object_id '\(level)' has characters outside [a-zA-Z0-9_-]")
        }
        guard let raw = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any] else {
            return p + ["payload is not a JSON object"]
        }
        let c = expand(raw)
        for k in c.keys where !allowed.contains(k) { p.append("unknown key '\(k)' for \(component)") }
        func isPublishTopic(_ t: String) -> Bool { !t.isEmpty && !t.contains("+") && !t.contains("#") && !t.contains("\u{0}") }
        if component == "button" {
            guard let commandTopic = c["command_topic"] as? String, isPublishTopic(commandTopic) else {
                return p + ["command_topic missing or not a valid publish topic"]
            }
            if let press = c["payload_press"], !(press is String) { p.append("payload_press must be a string") }
            if let retain = c["retain"], !(retain is Bool) { p.append("retain must be a boolean") }
        } else {
            guard let stateTopic = c["state_topic"] as? String, isPublishTopic(stateTopic) else {
                return p + ["state_topic missing or not a valid topic"]
            }
        }
        if let id = c["unique_id"] as? String {
            if id.isEmpty { p.append("unique_id is empty") }
        } else {
            p.append("unique_id missing: without it the entity cannot belong to a device or be edited in the UI")
        }
        if let device = c["device"] as? [String: Any] {
            let ids = device["identifiers"] as? [String] ?? []
            let connections = device["connections"] as? [[String]] ?? []
            if ids.isEmpty && connections.isEmpty { p.append("device needs identifiers or connections") }
            if device["name"] as? String == nil { p.append("device.name missing") }
            // cv.configuration_url: an http(s) URL (vol.Url) or a homeassistant:// path.
            if let url = device["configuration_url"] {
                let text = url as? String ?? ""
                let scheme = text.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
                let rest = text.dropFirst(scheme.count)
                if !(["http", "https"].contains(scheme) && rest.hasPrefix("://") && rest.count > 3 && !text.contains(" "))
                    && !text.hasPrefix("homeassistant://") {
                    p.append("device.configuration_url '\(text)' is not an http(s) or homeassistant:// URL")
                }
            }
        } else if c["device"] != nil {
            p.append("device is not an object")
        }
        if let origin = c["origin"] {
            if (origin as? [String: Any])?["name"] as? String == nil { p.append("origin.name is required when origin is given") }
        }
        if let availability = c["availability"] as? [[String: Any]] {
            if availability.isEmpty { p.append("availability list is empty") }
            for item in availability where item["topic"] as? String == nil { p.append("availability item without topic") }
            if !availability.contains(where: { $0["topic"] as? String == statusTopic }) { p.append("availability does not use \(statusTopic)") }
        } else if c["availability_topic"] as? String != statusTopic, c["state_topic"] as? String != statusTopic {
            // (An entity whose state *is* the status topic, the connectivity sensor, needs none.)
            p.append("availability not tied to \(statusTopic)")
        }
        if c["availability"] != nil && c["availability_topic"] != nil { p.append("availability and availability_topic are mutually exclusive") }
        if let q = c["qos"] as? Int, !(0...2).contains(q) { p.append("qos \(q) not 0…2") }
        if let e = c["expire_after"] as? Int, e < 0 { p.append("expire_after must be ≥ 0") }
        if let cat = c["entity_category"] as? String, cat != "diagnostic", !(cat == "config" && component != "sensor") {
            p.append("entity_category '\(cat)' not allowed for \(component)")
        }
        for key in ["value_template", "json_attributes_template", "command_template"] {
            if let tpl = c[key] as? String, !(tpl.contains("{{") && tpl.contains("}}")) { p.append("\(key) is not a template") }
        }
        if let tpl = c["json_attributes_template"] as? String {
            for name in attributeNames(tpl) where blockedAttributes.contains(name) {
                p.append("json_attributes_template attribute '\(name)' is one Home Assistant drops (MQTT_ATTRIBUTES_BLOCKED)")
            }
        }
        if c["json_attributes_template"] != nil && c["json_attributes_topic"] == nil {
            p.append("json_attributes_template without json_attributes_topic")
        }
        let deviceClass = c["device_class"] as? String
        switch component {
        case "sensor":
            if let dc = deviceClass, !sensorDeviceClasses.contains(dc) { p.append("sensor device_class '\(dc)' unknown") }
            if let sc = c["state_class"] as? String, !stateClasses.contains(sc) { p.append("state_class '\(sc)' unknown") }
            if deviceClass == "enum" {
                let options = c["options"] as? [String] ?? []
                if options.isEmpty { p.append("device_class enum needs options") }
                if c["unit_of_measurement"] != nil || c["state_class"] != nil {
                    p.append("device_class enum must not have unit_of_measurement or state_class")
                }
            } else if c["options"] != nil {
                p.append("options is only allowed with device_class enum")
            }
            if deviceClass == "frequency", let unit = c["unit_of_measurement"] as? String, !frequencyUnits.contains(unit) {
                p.append("frequency unit '\(unit)' not accepted")
            }
            if let dc = deviceClass, let units = deviceClassUnits[dc] {
                let unit = c["unit_of_measurement"] as? String ?? "(none)"
                if !units.contains(unit) { p.append("\(dc) unit '\(unit)' not accepted") }
            }
            if let prec = c["suggested_display_precision"] as? Int, prec < 0 { p.append("suggested_display_precision < 0") }
        case "binary_sensor":
            if let dc = deviceClass, !binarySensorDeviceClasses.contains(dc) { p.append("binary_sensor device_class '\(dc)' unknown") }
        case "event":
            if let dc = deviceClass, !["button", "doorbell", "motion"].contains(dc) { p.append("event device_class '\(dc)' unknown") }
            if (c["event_types"] as? [String] ?? []).isEmpty { p.append("event needs event_types") }
            if c["state_topic"] == nil { p.append("event needs state_topic") }
        case "button":
            if let dc = deviceClass, !buttonDeviceClasses.contains(dc) { p.append("button device_class '\(dc)' unknown") }
        default: break
        }
        return p
    }
}
