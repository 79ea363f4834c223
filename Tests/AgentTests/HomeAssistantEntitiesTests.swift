import Foundation
import Testing
import Messaging
@testable import Agent

/// Buttons, tilt thresholds, connectivity/health, activity attributes, distance/pace and the
/// device's configuration_url, as discovery documents (no broker: HomeAssistantBrokerTests and
/// HomeAssistantButtonTests run them on a real mosquitto).
@Suite("Home Assistant entities")
struct HomeAssistantEntitiesTests {
    func discovery(events: Bool = true, control: Bool = true, gyroscope: Bool = true,
                   thresholds: [ThresholdEntity] = [], url: String? = nil) throws -> HomeAssistantDiscovery {
        var d = HomeAssistantDiscovery(settings: HomeAssistantSettings(enabled: true), deviceID: "board-7",
                                       topics: try TopicLayout(prefix: "edgemotion/board-7"), model: "bmi160",
                                       hasHeading: false, hasEvents: events)
        d.hasControl = control
        d.hasGyroscope = gyroscope
        d.thresholds = thresholds
        d.configurationURL = url
        return d
    }

    func problems(_ e: HomeAssistantEntity) -> [String] {
        HomeAssistantSchema.problems(topic: e.configTopic, payload: Array(e.config.serialized.utf8), statusTopic: "edgemotion/board-7/status")
    }

    /// `value_json.<field>` and `value_json.get('<field>')` names a template reads.
    func fields(_ template: String) -> (required: Set<String>, optional: Set<String>) {
        func matches(_ pattern: String) -> Set<String> {
            let re = try! NSRegularExpression(pattern: pattern)
            let ns = template as NSString
            return Set(re.matches(in: template, range: NSRange(location: 0, length: ns.length)).map { ns.substring(with: $0.range(at: 1)) })
        }
        return (matches(#"value_json\.([a-z_]+)\b(?!\()"#), matches(#"value_json\.get\('([a-z_]+)'\)"#))
    }

    func string(_ e: HomeAssistantEntity?, _ key: String) -> String? {
        guard case .string(let s)? = e?.config[key] else { return nil }
        return s
    }

    /// Every template reads only fields the documented payload has (docs/topics.md examples,
    /// copied by hand), so no entity renders from a field the agent never sends.
    func expectTemplatesRead(_ e: HomeAssistantEntity?, documented example: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(example.utf8)) as? [String: Any], sourceLocation: sourceLocation)
        for key in ["value_template", "json_attributes_template"] {
            guard let t = string(e, key) else { continue }
            let f = fields(t)
            #expect(!f.required.isEmpty || !f.optional.isEmpty, "\(key) reads no field: \(t)", sourceLocation: sourceLocation)
            for name in f.required { #expect(json[name] != nil, "\(e?.objectID ?? "?") \(key) reads '\(name)', not in \(example)", sourceLocation: sourceLocation) }
        }
    }

    // MARK: Buttons

    /// Each button publishes, on its command topic, a payload the agent's own command parsers
    /// accept as that action: what Home Assistant sends when it is pressed.
    @Test func buttonsPublishPayloadsTheAgentsCommandParsersAccept() throws {
        let d = try discovery()
        let buttons = d.entities.filter { $0.component == "button" }
        #expect(buttons.map(\.objectID) == ["set_level", "arm_tamper", "disarm_tamper", "calibrate_gyro"])
        for b in buttons {
            #expect(problems(b).isEmpty, "\(b.configTopic): \(problems(b))\n\(b.config.serialized)")
            #expect(b.config["state_topic"] == nil)
            // Level and calibration are settings (the device page's Configuration card); tamper is everyday use.
            #expect(b.config["entity_category"] == (b.objectID.hasSuffix("tamper") ? nil : .string("config")), "\(b.objectID)")
            let topic = try #require(string(b, "command_topic"))
            let press = Array(try #require(string(b, "payload_press")).utf8)
            switch topic {
            case "edgemotion/board-7/cmd/events":
                let (id, action) = MotionEventCommand.parse(press)
                #expect(id == "home-assistant" && action == b.objectID, "\(b.objectID): \(String(decoding: press, as: UTF8.self))")
            case "edgemotion/board-7/cmd/calibrate":
                let parsed = try CalibrationCommand.parse(press).get()
                #expect(parsed.action == "gyro" && parsed.duration == 10 && parsed.id == "home-assistant")
            default:
                Issue.record("\(b.objectID) publishes to \(topic), which the agent does not obey")
            }
        }
    }

    /// Commands are obeyed only with `control.enabled` (docs/configuration.md): without it no
    /// button is announced and a previous run's buttons are retired; the event buttons need
    /// `events.enabled`, calibration a gyroscope.
    @Test func buttonsFollowTheControlAccessRuleAndWhatTheDeviceHas() throws {
        let off = try discovery(control: false)
        #expect(!off.entities.contains { $0.component == "button" })
        #expect(Set(off.retiredConfigTopics).isSuperset(of: ["set_level", "arm_tamper", "disarm_tamper", "calibrate_gyro"]
            .map { "homeassistant/button/board-7/\($0)/config" }))
        #expect(try discovery(events: false).entities.filter { $0.component == "button" }.map(\.objectID) == ["calibrate_gyro"])
        #expect(try discovery(gyroscope: false).entities.filter { $0.component == "button" }.map(\.objectID)
            == ["set_level", "arm_tamper", "disarm_tamper"])
        #expect(try discovery(gyroscope: false).retiredConfigTopics.contains("homeassistant/button/board-7/calibrate_gyro/config"))
    }

    @Test func schemaCheckerKnowsTheButtonPlatform() {
        let noCommand = #"{"uniq_id":"u","avty_t":"a/status","pl_prs":"PRESS"}"#
        #expect(HomeAssistantSchema.problems(topic: "homeassistant/button/n/x/config", payload: Array(noCommand.utf8), statusTopic: "a/status")
            .contains { $0.contains("command_topic missing") })
        let withState = #"{"uniq_id":"u","avty_t":"a/status","cmd_t":"a/cmd","stat_t":"a/s","dev_cla":"restart"}"#
        #expect(HomeAssistantSchema.problems(topic: "homeassistant/button/n/x/config", payload: Array(withState.utf8), statusTopic: "a/status")
            == ["unknown key 'state_topic' for button"])
        let badClass = #"{"uniq_id":"u","avty_t":"a/status","cmd_t":"a/+/cmd","dev_cla":"door"}"#
        #expect(!HomeAssistantSchema.problems(topic: "homeassistant/button/n/x/config", payload: Array(badClass.utf8), statusTopic: "a/status").isEmpty)
    }

    @Test func calibrationCommandParsing() throws {
        #expect(try CalibrationCommand.parse(Array("gyro".utf8)).get() == CalibrationCommand(action: "gyro"))
        #expect(try CalibrationCommand.parse(Array(#"{"action":"gyro","duration_s":2.5,"id":"r"}"#.utf8)).get().duration == 2.5)
        for (payload, reason) in [("", "empty payload"), (#"{"action":"accel"}"#, "'action' must be one of gyro"),
                                  (#"{"action":"gyro","duration_s":1}"#, "'duration_s' must be"),
                                  (#"{"action":"gyro","duration_s":"10"}"#, "'duration_s' must be"),
                                  (#"{"action":"gyro","x":1}"#, "unknown key 'x'"), (#"{"action":"gyro","action":"gyro"}"#, "appears twice"),
                                  ("[1]", "expected a JSON object"), (String(repeating: " ", count: 5000), "at most 4096")] {
            guard case .failure(let f) = CalibrationCommand.parse(Array(payload.utf8)) else { Issue.record("accepted \(payload)"); continue }
            #expect(f.message.contains(reason), "\(payload.prefix(40)): \(f.message)")
        }
    }

    // MARK: Thresholds

    @Test func eachNamedTiltThresholdIsABinarySensorWithItsDeviceClass() throws {
        let d = try discovery(thresholds: [ThresholdEntity(name: "garage_door", deviceClass: "garage_door"),
                                           ThresholdEntity(name: "lid", deviceClass: nil),
                                           ThresholdEntity(name: "Tür", deviceClass: "door")])
        let byID = Dictionary(uniqueKeysWithValues: d.entities.map { ($0.objectID, $0) })
        let garage = try #require(byID["threshold_garage_door"])
        #expect(garage.configTopic == "homeassistant/binary_sensor/board-7/threshold_garage_door/config")
        #expect(garage.config["device_class"] == .string("garage_door") && garage.config["name"] == .string("Garage door"))
        #expect(string(garage, "state_topic") == "edgemotion/board-7/state/threshold/garage_door")
        #expect(byID["threshold_lid"]?.config["device_class"] == nil)
        // A threshold name may hold any letter; the object id level may not (HA: [a-zA-Z0-9_-]).
        let door = try #require(byID["threshold_T-r"])
        #expect(string(door, "state_topic") == "edgemotion/board-7/state/threshold/Tür")
        for e in [garage, door] {
            #expect(problems(e).isEmpty, "\(problems(e))")
            try expectTemplatesRead(e, documented: #"{"state":"open","on":true,"tilt_deg":88.2}"#)
        }
        #expect(try discovery(events: false, thresholds: [ThresholdEntity(name: "lid", deviceClass: nil)]).entities
            .contains { $0.objectID == "threshold_lid" } == false)
        // The threshold's own word (open/closed) as an attribute Home Assistant keeps: it drops one
        // named `state` (MQTT_ATTRIBUTES_BLOCKED; seen on a running 2024.3.3 with scripts/ha-check).
        #expect(HomeAssistantSchema.attributeNames(string(garage, "json_attributes_template") ?? "") == ["threshold_state", "tilt_deg"])
    }

    /// The schema checker itself: an attribute Home Assistant's MQTT integration drops is reported.
    @Test func attributesHomeAssistantDropsAreRejected() {
        let bad = #"{"uniq_id":"u","stat_t":"a/b","avty_t":"a/status","json_attr_t":"a/b","#
            + #""json_attr_tpl":"{{ {'state': value_json.state, 'friendly_name': 1, 'tilt_deg': 2} | to_json }}"}"#
        let p = HomeAssistantSchema.problems(topic: "homeassistant/binary_sensor/n/x/config", payload: Array(bad.utf8), statusTopic: "a/status")
        #expect(p.filter { $0.contains("MQTT_ATTRIBUTES_BLOCKED") }.count == 2, "\(p)")
        #expect(HomeAssistantSchema.attributeNames("{{ {'a': 1, 'b_2': x['c'], 'd': 'e'} }}") == ["a", "b_2", "d"])
    }

    @Test func thresholdDeviceClassIsCheckedInConfig() throws {
        let c = try ConfigurationLoader.parse(yaml: "events: { enabled: true, thresholds: { door: { above_deg: 60, below_deg: 20, device_class: garage_door } } }",
                                              fileName: "t.yaml")
        #expect(c.events.deviceClasses == ["garage_door"])
        let p = ConfigTestSupport.problems("events: { enabled: true, thresholds: { door: { above_deg: 60, device_class: garagedoor } } }")
        #expect(p.first?.contains("events.thresholds.door.device_class") == true && p.first?.contains("garage_door") == true, "\(p)")
    }

    // MARK: Connectivity, health, activity, pedometer

    @Test func connectivityAndHealthAreDiagnostics() throws {
        let byID = Dictionary(uniqueKeysWithValues: try discovery().entities.map { ($0.objectID, $0) })
        let connectivity = try #require(byID["connectivity"])
        #expect(connectivity.component == "binary_sensor" && connectivity.config["device_class"] == .string("connectivity"))
        #expect(connectivity.config["entity_category"] == .string("diagnostic"))
        // The status topic's own payloads (docs/topics.md: `online` / `offline`, also the will),
        // and no availability: an agent that is gone reads "Disconnected", not "Unavailable".
        #expect(string(connectivity, "state_topic") == "edgemotion/board-7/status")
        #expect(string(connectivity, "payload_on") == "online" && string(connectivity, "payload_off") == "offline")
        #expect(connectivity.config["availability"] == nil && problems(connectivity).isEmpty, "\(problems(connectivity))")
        let health = try #require(byID["health"])
        #expect(health.config["device_class"] == .string("problem") && health.config["entity_category"] == .string("diagnostic"))
        #expect(string(health, "state_topic") == "edgemotion/board-7/health" && problems(health).isEmpty, "\(problems(health))")
        try expectTemplatesRead(health, documented: """
            {"status":"ok","source":"ok","mqtt":"connected","last_error":"mqtt: MOSQ_ERR_CONN_LOST (…)",
             "last_error_time_utc_us":1764491436123456,"broker":"mqtt://127.0.0.1:1883","mqtt_reconnects":1,
             "mqtt_failovers":0,"outbox_bytes":0,"unacknowledged_events":0,"spool_corrupt_records":0,"dropped":0,
             "dropped_by_reason":{"full":0,"expired":0,"refused":0,"connection_lost":0,"shutdown":0,"spool_full":0},
             "time_utc_us":1764491436523456}
            """)
        // Only a status other than `ok` is a problem.
        #expect(string(health, "value_template") == "{{ 'OFF' if value_json.status == 'ok' else 'ON' }}")
    }

    @Test func activityCarriesConfidenceAndEveryFlagAsAttributes() throws {
        let activity = try #require(try discovery().entities.first { $0.objectID == "activity" })
        #expect(string(activity, "json_attributes_topic") == "edgemotion/board-7/activity" && problems(activity).isEmpty)
        let example = """
            {"activity":"automotive","stationary":true,"walking":false,"running":false,"cycling":false,
             "automotive":true,"unknown":false,"confidence":"high","start_utc":1764491426.5,"previous_duration_s":312.0}
            """
        try expectTemplatesRead(activity, documented: example)
        let read = fields(try #require(string(activity, "json_attributes_template"))).required
        #expect(read.isSuperset(of: ["confidence", "stationary", "walking", "running", "cycling", "automotive", "unknown"]), "\(read)")
    }

    @Test func distanceAndPaceReadThePedometerTopic() throws {
        let byID = Dictionary(uniqueKeysWithValues: try discovery().entities.map { ($0.objectID, $0) })
        let example = #"{"start_utc":1764491400.0,"end_utc":1764491460.0,"steps":112,"distance_m":84.0,"cadence_steps_per_s":1.9,"pace_s_per_m":0.71,"average_active_pace_s_per_m":0.72}"#
        for id in ["steps", "cadence", "distance", "pace"] {
            let e = try #require(byID[id])
            #expect(string(e, "state_topic") == "edgemotion/board-7/pedometer" && problems(e).isEmpty, "\(id): \(problems(e))")
            try expectTemplatesRead(e, documented: example)
        }
        #expect(byID["distance"]?.config["device_class"] == .string("distance") && byID["distance"]?.config["unit_of_measurement"] == .string("m"))
        // 0.71 s/m is 710 s per km = 11.83 min/km: the template multiplies by 1000 m/km and divides by 60 s/min.
        #expect(string(byID["pace"], "value_template")?.contains("value_json.pace_s_per_m * 1000 / 60") == true)
        #expect(byID["pace"]?.config["unit_of_measurement"] == .string("min/km"))
    }

    // MARK: configuration_url

    @Test func configurationURLIsTheDashboardWhenABrowserCanReachIt() {
        var http = HTTPSettings()
        #expect(DashboardLink.url(http: http, configured: nil, hostName: "pi") == nil, "dashboard off")
        http.enabled = true
        #expect(DashboardLink.url(http: http, configured: nil, hostName: "pi") == nil, "the default 127.0.0.1:8080 is the board's own")
        http.listen = "[::1]:8080"
        #expect(DashboardLink.url(http: http, configured: nil, hostName: "pi") == nil)
        http.listen = "0.0.0.0:8080"
        #expect(DashboardLink.url(http: http, configured: nil, hostName: "board-7.local") == "http://board-7.local:8080/")
        http.listen = "0.0.0.0:0"
        #expect(DashboardLink.url(http: http, configured: nil, hostName: "pi") == nil, "port 0: not known in advance")
        http.listen = "192.168.1.20:80"
        #expect(DashboardLink.url(http: http, configured: nil, hostName: "pi") == "http://192.168.1.20:80/")
        http.listen = "[::]:8443"
        http.certFile = "/etc/edgemotion/cert.pem"; http.keyFile = "/etc/edgemotion/key.pem"
        #expect(DashboardLink.url(http: http, configured: nil, hostName: "pi") == "https://pi:8443/")
        http.listen = "[fd00::7]:8443"
        #expect(DashboardLink.url(http: http, configured: nil, hostName: "pi") == "https://[fd00::7]:8443/")
        #expect(DashboardLink.url(http: HTTPSettings(), configured: "https://proxy.example/board-7/", hostName: "pi") == "https://proxy.example/board-7/")
    }

    @Test func configurationURLIsInTheDeviceBlockAndChecked() throws {
        let d = try discovery(url: "http://board-7.local:8080/")
        for e in d.entities {
            guard case .object(let device)? = e.config["device"] else { Issue.record("no device"); continue }
            #expect(device.first { $0.0 == "configuration_url" }?.1 == .string("http://board-7.local:8080/"))
            #expect(problems(e).isEmpty, "\(e.objectID): \(problems(e))")
        }
        #expect(try discovery().entities.allSatisfy { $0.config["device"]?["configuration_url"] == nil })
        let bad = #"{"uniq_id":"u","stat_t":"a/b","avty_t":"a/status","dev":{"ids":["i"],"name":"n","cu":"board-7:8080"}}"#
        #expect(HomeAssistantSchema.problems(topic: "homeassistant/sensor/n/x/config", payload: Array(bad.utf8), statusTopic: "a/status")
            .contains { $0.contains("configuration_url") })
        #expect(ConfigTestSupport.problems("home_assistant: { configuration_url: 'ftp://x/' }").first?.contains("http://") == true)
        let c = try ConfigurationLoader.parse(yaml: "home_assistant: { configuration_url: 'https://h/' }", fileName: "t.yaml")
        #expect(c.homeAssistant.configurationURL == "https://h/")
    }

    // MARK: Stale entities

    @Test func ownConfigTopicsAndPayloadsAreRecognised() throws {
        let d = try discovery()
        #expect(d.ownConfigPattern == "homeassistant/+/board-7/+/config")
        #expect(d.isOwnConfigTopic("homeassistant/binary_sensor/board-7/threshold_lid/config"))
        #expect(!d.isOwnConfigTopic("homeassistant/binary_sensor/board-8/threshold_lid/config"))
        #expect(!d.isOwnConfigTopic("homeassistant/binary_sensor/board-7/config"))
        #expect(d.isOwnEntityConfig(Array(#"{"unique_id":"edgemotion_board-7_threshold_lid"}"#.utf8)))
        #expect(!d.isOwnEntityConfig(Array(#"{"unique_id":"zigbee_board-7_x"}"#.utf8)))
        #expect(!d.isOwnEntityConfig(Array(#"{"unique_id":"edgemotion_board-77_x"}"#.utf8)))
        #expect(!d.isOwnEntityConfig(Array("not json".utf8)))
    }
}
