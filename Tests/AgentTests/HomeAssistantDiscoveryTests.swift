import Foundation
import Testing
import Messaging
import TestSupport
@testable import Agent

@Suite("Home Assistant discovery", .ownThread)
struct HomeAssistantDiscoveryTests {
    func discovery(device: String = "board-7", heading: Bool = true, events: Bool = false,
                   settings: HomeAssistantSettings = HomeAssistantSettings(enabled: true)) throws -> HomeAssistantDiscovery {
        HomeAssistantDiscovery(settings: settings, deviceID: device, topics: try TopicLayout(prefix: "edgemotion/\(device)"),
                               model: "simulator:walking", hasHeading: heading, hasEvents: events)
    }

    @Test func everyDocumentPassesHomeAssistantsRules() throws {
        let d = try discovery()
        #expect(d.entities.count == 14)
        for e in d.entities {
            let problems = HomeAssistantSchema.problems(topic: e.configTopic, payload: Array(e.config.serialized.utf8),
                                                        statusTopic: "edgemotion/board-7/status")
            #expect(problems.isEmpty, "\(e.configTopic): \(problems)\n\(e.config.serialized)")
        }
    }

    @Test func schemaCheckerRejectsBrokenDocuments() {
        // The checker must be able to fail: an enum with a unit, a bad device class, no unique_id.
        let bad = #"{"name":"x","stat_t":"a/b","dev_cla":"enum","unit_of_meas":"g","ops":["a"],"avty_t":"a/status","dev":{"ids":["i"],"name":"n"}}"#
        let problems = HomeAssistantSchema.problems(topic: "homeassistant/sensor/n/x/config", payload: Array(bad.utf8), statusTopic: "a/status")
        #expect(problems.contains { $0.contains("unique_id missing") })
        #expect(problems.contains { $0.contains("must not have unit_of_measurement") })
        let badClass = #"{"uniq_id":"u","stat_t":"a/b","dev_cla":"tilt","avty_t":"a/status"}"#
        #expect(HomeAssistantSchema.problems(topic: "homeassistant/binary_sensor/n/x/config", payload: Array(badClass.utf8), statusTopic: "a/status")
            .contains { $0.contains("device_class 'tilt' unknown") })
        #expect(!HomeAssistantSchema.problems(topic: "homeassistant/sensor/n.x/y/config", payload: Array("{}".utf8), statusTopic: "s").isEmpty)
    }

    @Test func uniqueIDsAreDistinctStableAndScopedByDevice() throws {
        let a = try discovery().entities.map { $0.config["unique_id"] }
        let again = try discovery().entities.map { $0.config["unique_id"] }
        let other = try discovery(device: "board-8").entities.map { $0.config["unique_id"] }
        #expect(Set(a.map { $0?.serialized ?? "" }).count == a.count)
        #expect(a == again)
        let disjoint = Set(a.map { $0?.serialized ?? "" }).isDisjoint(with: other.map { $0?.serialized ?? "" })
        #expect(disjoint)
        #expect(a.first == .string("edgemotion_board-7_activity"))
    }

    @Test func oneDeviceBlockAndOriginSharedByAllEntitiesAndTopicsFollowTheLayout() throws {
        let d = try discovery()
        let devices = Set(d.entities.map { $0.config["device"]?.serialized ?? "" })
        #expect(devices.count == 1)
        let origins = d.entities.allSatisfy { $0.config["origin"]?["name"] == .string("edgemotion") }
        #expect(origins)
        let byID = Dictionary(uniqueKeysWithValues: d.entities.map { ($0.objectID, $0) })
        #expect(byID["activity"]?.config["options"] == .array(HomeAssistantDiscovery.activityOptions.map { .string($0) }))
        #expect(byID["activity"]?.config["state_topic"] == .string("edgemotion/board-7/activity"))
        #expect(byID["moving"]?.configTopic == "homeassistant/binary_sensor/board-7/moving/config")
        #expect(byID["roll"]?.config["state_topic"] == .string("edgemotion/board-7/summary"))
        #expect(byID["steps"]?.config["state_topic"] == .string("edgemotion/board-7/pedometer"))
        for id in ["sample_rate", "dropped_samples", "mqtt_reconnects"] {
            #expect(byID[id]?.config["entity_category"] == .string("diagnostic"), "\(id)")
        }
        #expect(byID["roll"]?.config["expire_after"] == .int(180))
        #expect(try discovery(heading: false).entities.contains { $0.objectID == "heading" } == false)
    }

    /// Home Assistant averages `measurement` arithmetically (a mean of 284° where the circular
    /// mean is 308°); a heading is an angle, roll and pitch stay in −180…180° and are not wrapped.
    @Test func headingIsAnAngleMeasurementAndRollIsNot() throws {
        let byID = Dictionary(uniqueKeysWithValues: try discovery().entities.map { ($0.objectID, $0) })
        #expect(byID["heading"]?.config["state_class"] == .string("measurement_angle"))
        #expect(byID["roll"]?.config["state_class"] == .string("measurement"))
    }

    @Test func customDiscoveryPrefixIsUsedForConfigAndBirthTopics() throws {
        let d = try discovery(settings: HomeAssistantSettings(enabled: true, discoveryPrefix: "ha/disc"))
        #expect(d.birthTopic == "ha/disc/status")
        let prefixed = d.entities.allSatisfy { $0.configTopic.hasPrefix("ha/disc/") }
        #expect(prefixed)
        let e = d.entities[0]
        #expect(HomeAssistantSchema.problems(topic: e.configTopic, payload: Array(e.config.serialized.utf8),
                                             statusTopic: "edgemotion/board-7/status", discoveryPrefix: "ha/disc").isEmpty)
    }

    /// Home Assistant removes an entity when its config topic gets an empty retained payload; an
    /// entity a previous run announced (heading in a north frame) must go when it is not announced.
    @Test func headingIsRetiredWhenNotAnnouncedAndOnlyThen() throws {
        let buttons = ["set_level", "arm_tamper", "disarm_tamper", "calibrate_gyro"].map { "homeassistant/button/board-7/\($0)/config" }
        // The spectrum's peak frequency is announced only with events.vibration.spectrum.enabled,
        // the orientation event only with events.orientation.
        let spectrum = ["homeassistant/sensor/board-7/vibration_peak_frequency/config", "homeassistant/event/board-7/orientation/config"]
        #expect(try discovery(heading: false, events: true).retiredConfigTopics == ["homeassistant/sensor/board-7/heading/config"] + spectrum + buttons)
        #expect(try discovery(heading: true, events: true).retiredConfigTopics == spectrum + buttons)
        #expect(try discovery(heading: true, events: false).retiredConfigTopics == [
            "homeassistant/sensor/board-7/tilt/config", "homeassistant/sensor/board-7/vibration_rms/config",
            "homeassistant/binary_sensor/board-7/running/config",
            "homeassistant/event/board-7/shock/config", "homeassistant/event/board-7/free_fall/config",
            "homeassistant/event/board-7/tamper/config", "homeassistant/event/board-7/tap/config",
        ] + spectrum + buttons)
        let announced = Set(try discovery(heading: false).entities.map(\.configTopic))
        #expect(announced.isDisjoint(with: try discovery(heading: false).retiredConfigTopics))
    }

    /// With `events.vibration.spectrum.enabled`: one diagnostic sensor, the spectrum's peak
    /// frequency in Hz (HA's `frequency` device class), read from the documented
    /// `vibration/spectrum` payload (docs/topics.md's example, copied by hand); not announced
    /// without the spectrum, nor without events.
    @Test func theSpectrumPeakFrequencyIsADiagnosticSensorOnlyWithTheSpectrum() throws {
        var d = try discovery(events: true)
        d.hasSpectrum = true
        let e = try #require(d.entities.first { $0.objectID == "vibration_peak_frequency" })
        #expect(HomeAssistantSchema.problems(topic: e.configTopic, payload: Array(e.config.serialized.utf8),
                                             statusTopic: "edgemotion/board-7/status").isEmpty)
        #expect(e.configTopic == "homeassistant/sensor/board-7/vibration_peak_frequency/config")
        #expect(e.config["state_topic"] == .string("edgemotion/board-7/vibration/spectrum"))
        #expect(e.config["unit_of_measurement"] == .string("Hz") && e.config["device_class"] == .string("frequency"))
        #expect(e.config["entity_category"] == .string("diagnostic"))
        let documented = #"{"timestamp_utc":1764491436.123,"rate_hz":200.0,"length":256,"resolution_hz":0.7813,"edges_hz":[2.0,4.0,8.0],"rms_ms2":[0.01,0.7],"peak_hz":50.0,"total_rms_ms2":0.7}"#
        let json = try #require(try JSONSerialization.jsonObject(with: Data(documented.utf8)) as? [String: Any])
        guard case .string(let template)? = e.config["value_template"] else { Issue.record("no value_template"); return }
        #expect(template.contains("value_json.peak_hz") && json["peak_hz"] != nil)
        #expect(!d.retiredConfigTopics.contains(e.configTopic))
        #expect(try discovery(events: true).entities.contains { $0.objectID == "vibration_peak_frequency" } == false)
        var noEvents = try discovery(events: false)
        noEvents.hasSpectrum = true
        #expect(noEvents.entities.contains { $0.objectID == "vibration_peak_frequency" } == false)
    }

    /// With `events.orientation`: one `event` entity (home-assistant.io/integrations/event.mqtt:
    /// `event_types` required, the payload's `event_type` one of them) whose event type is the
    /// face now up. The faces, copied by hand from docs/topics.md (`events/motion`, orientation):
    /// face_up (+z up), face_down, portrait (+y), portrait_upside_down, landscape_left (+x),
    /// landscape_right; `unknown` is only ever `previous`, never a face. Its documented example
    /// names a face among them. Announced only with events on and orientation on, retired otherwise;
    /// `events.orientation: true` in a configuration turns it on.
    @Test func theOrientationEventFiresTheFaceNowUpOnlyWithOrientationOn() throws {
        var d = try discovery(events: true)
        d.hasOrientation = true
        let e = try #require(d.entities.first { $0.objectID == "orientation" })
        #expect(HomeAssistantSchema.problems(topic: e.configTopic, payload: Array(e.config.serialized.utf8),
                                             statusTopic: "edgemotion/board-7/status").isEmpty)
        #expect(e.configTopic == "homeassistant/event/board-7/orientation/config")
        let faces = ["face_up", "face_down", "portrait", "portrait_upside_down", "landscape_left", "landscape_right"]
        #expect(e.config["event_types"] == .array(faces.map { .string($0) }))
        #expect(e.config["state_topic"] == .string("edgemotion/board-7/events/motion"))
        guard case .string(let template)? = e.config["value_template"] else { Issue.record("no value_template"); return }
        #expect(template.contains("value_json.type == 'orientation'") && template.contains("event_type=value_json.face"), "\(template)")
        let documented = #"{"type":"orientation","t_s":7.5,"onset_s":7.0,"face":"portrait","previous":"face_up"}"#
        let json = try #require(try JSONSerialization.jsonObject(with: Data(documented.utf8)) as? [String: Any])
        #expect(faces.contains(json["face"] as? String ?? ""))
        #expect(!d.retiredConfigTopics.contains(e.configTopic))

        #expect(try discovery(events: true).entities.contains { $0.objectID == "orientation" } == false)
        #expect(try discovery(events: true).retiredConfigTopics.contains(e.configTopic))
        var noEvents = try discovery(events: false)
        noEvents.hasOrientation = true
        #expect(noEvents.entities.contains { $0.objectID == "orientation" } == false)

        let c = try ConfigurationLoader.parse(yaml: "events: { enabled: true, orientation: true }\nhome_assistant: { enabled: true }", fileName: "o.yaml")
        let on = try #require(HomeAssistantIntegration(configuration: c, deviceID: "board-7", topics: try TopicLayout(prefix: "edgemotion/board-7"),
                                                       sourceName: "simulator:walking", sensors: [.accelerometer, .gyroscope]))
        #expect(on.discovery.hasOrientation)
        let off = try #require(HomeAssistantIntegration(configuration: try ConfigurationLoader.parse(
            yaml: "events: { enabled: true }\nhome_assistant: { enabled: true }", fileName: "p.yaml"),
            deviceID: "board-7", topics: try TopicLayout(prefix: "edgemotion/board-7"), sourceName: "simulator:walking", sensors: [.accelerometer]))
        #expect(!off.discovery.hasOrientation)
    }

    /// With `events.enabled`: tilt, vibration RMS and running, read from the fields docs/topics.md
    /// documents for `state/tilt` and `state/vibration` (its example payloads, copied by hand).
    @Test func eventEntitiesReadTheDocumentedStateTopics() throws {
        let d = try discovery(events: true)
        #expect(d.entities.count == 21)
        for e in d.entities {
            let problems = HomeAssistantSchema.problems(topic: e.configTopic, payload: Array(e.config.serialized.utf8),
                                                        statusTopic: "edgemotion/board-7/status")
            #expect(problems.isEmpty, "\(e.configTopic): \(problems)\n\(e.config.serialized)")
        }
        let byID = Dictionary(uniqueKeysWithValues: d.entities.map { ($0.objectID, $0) })
        let documented: [String: String] = [
            "edgemotion/board-7/state/tilt": #"{"tilt_deg":3.1,"roll_deg":-2.0,"pitch_deg":2.4,"zero":[0.0,0.0,1.0]}"#,
            "edgemotion/board-7/state/vibration": #"{"rms_ms2":1.41,"peak_ms2":2.0,"dominant_hz":50.0,"running":true,"bands":[{"name":"motor","rms_ms2":1.39}]}"#,
        ]
        for (id, field) in [("tilt", "tilt_deg"), ("vibration_rms", "rms_ms2"), ("running", "running")] {
            let e = try #require(byID[id], "\(id) announced")
            guard case .string(let topic)? = e.config["state_topic"], case .string(let template)? = e.config["value_template"] else {
                Issue.record("\(id) has no state_topic/value_template"); continue
            }
            let example = try #require(documented[topic], "\(id) reads \(topic), which is not a documented state topic")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(example.utf8)) as? [String: Any])
            #expect(template.contains("value_json.\(field)") && json[field] != nil, "\(id): \(template)")
        }
        #expect(byID["running"]?.configTopic == "homeassistant/binary_sensor/board-7/running/config")
        #expect(byID["running"]?.config["device_class"] == .string("running"))
        #expect(byID["tilt"]?.config["unit_of_measurement"] == .string("°"))
        #expect(try discovery(events: false).entities.contains { $0.objectID == "tilt" } == false)
        // Event entities (home-assistant.io/integrations/event.mqtt): event_types, fed from events/motion.
        let expectedTypes: [String: [String]] = ["shock": ["shock"], "free_fall": ["free_fall"], "tamper": ["tamper"], "tap": ["tap", "double_tap"]]
        for (id, types) in expectedTypes {
            let e = try #require(byID[id])
            #expect(e.configTopic == "homeassistant/event/board-7/\(id)/config")
            #expect(e.config["event_types"] == .array(types.map { .string($0) }))
            #expect(e.config["state_topic"] == .string("edgemotion/board-7/events/motion"))
        }
        let badEvent = #"{"uniq_id":"u","stat_t":"a/b","avty_t":"a/status","exp_aft":5}"#
        let eventProblems = HomeAssistantSchema.problems(topic: "homeassistant/event/n/x/config", payload: Array(badEvent.utf8), statusTopic: "a/status")
        #expect(eventProblems.contains { $0.contains("event_types") } && eventProblems.contains { $0.contains("expire_after") })
    }

    /// Home Assistant's device page shows `model`: the chip, not the source's bus address or scenario.
    @Test func deviceModelIsTheChipFromTheSourceReport() {
        #expect(HomeAssistantDiscovery.model(sourceName: "iio:bmi160") == "bmi160")
        #expect(HomeAssistantDiscovery.model(sourceName: "i2c-1:0x68:mpu6050") == "mpu6050")
        #expect(HomeAssistantDiscovery.model(sourceName: "i2c-3:0x6a:lsm6dsox") == "lsm6dsox")
        #expect(HomeAssistantDiscovery.model(sourceName: "simulator:walking") == "simulator")
        #expect(HomeAssistantDiscovery.model(sourceName: "replay:/var/lib/edgemotion/walk.emrec") == "recording")
        #expect(HomeAssistantDiscovery.model(sourceName: "bench:array") == "bench:array")
    }

    @Test func summaryDeadbandIgnoresSmallChangesAndWrapsHeading() {
        let s = SummaryState(rollDegrees: 10, pitchDegrees: 0, headingDegrees: 359.5, moving: false, timeUTCMicroseconds: 0)
        var t = s
        t.rollDegrees = 10.5; t.headingDegrees = 0.2
        #expect(!t.differs(from: s, deadbandDegrees: 1))
        t.pitchDegrees = -1.5
        #expect(t.differs(from: s, deadbandDegrees: 1))
        var m = s
        m.moving = true
        #expect(m.differs(from: s, deadbandDegrees: 1))
    }

    @Test func configSectionIsReadAndChecked() throws {
        let c = try ConfigurationLoader.parse(yaml: "home_assistant: { enabled: true, discovery_prefix: hass, summary_rate: 0.5 }", fileName: "t.yaml")
        #expect(c.homeAssistant.enabled && c.homeAssistant.discoveryPrefix == "hass" && c.homeAssistant.summaryRate == 0.5)
        #expect(!AgentConfiguration.default.homeAssistant.enabled)
        #expect(ConfigTestSupport.problems("home_assistant: { summary_rate: 5 }").first?.contains("0 < summary_rate ≤ 1") == true)
        #expect(ConfigTestSupport.problems("home_assistant: { discovery_prefix: 'ha/#' }").first?.contains("wildcards") == true)
        #expect(ConfigTestSupport.problems("home_assistant: { enabled: true }\nstreams: { motion: { enabled: false } }")
            .first?.contains("home_assistant.enabled") == true)
        #expect(ConfigTestSupport.problems("home_assistant: { enabled: true, heartbeat_s: 60, expire_after_s: 30 }").count == 1)
    }
}

/// The agent as users run it with `home_assistant.enabled`: real binary, real mosquitto.
@Suite("Home Assistant discovery on a broker", .serialized, .ownThread)
struct HomeAssistantBrokerTests {
    @Test func lateSubscriberSeesRetainedConfigsAndSummaryAndBirthTriggersReannouncement() throws {
        let broker = try MosquittoBroker.start()
        let config = try AgentProcess.writeConfig("""
        device: { id: ha-e2e }
        source:
          type: simulator
          rate: 200
          simulator: { scenario: rotation, seed: 3, real_time: true }
        fusion: { reference_frame: xMagneticNorthZVertical }
        home_assistant: { enabled: true, summary_rate: 1, angle_deadband_deg: 0.5 }
        """)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        usleep(4_000_000)

        // A subscriber arriving later gets every discovery document from the broker's retained store.
        let late = try TestSubscriber(url: broker.url, patterns: ["homeassistant/#", "edgemotion/ha-e2e/summary"])
        let configs = late.waitFor(count: 15, topic: nil, timeout: .seconds(5)).filter { $0.topic.hasSuffix("/config") }
        #expect(configs.count == 14, "agent log:\n\(agent.log)")
        let allRetained = configs.allSatisfy { $0.retain }
        #expect(allRetained)
        for m in configs {
            let problems = HomeAssistantSchema.problems(topic: m.topic, payload: m.payload, statusTopic: "edgemotion/ha-e2e/status")
            #expect(problems.isEmpty, "\(m.topic): \(problems)")
        }
        let summary = try #require(late.waitFor(count: 1, topic: "edgemotion/ha-e2e/summary").first)
        #expect(summary.retain)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(summary.payload)) as? [String: Any])
        for key in ["roll_deg", "pitch_deg", "heading_deg", "moving", "time_utc_us"] { #expect(json[key] != nil, "\(key) in \(summary.payloadString)") }

        // Throttled: a rotating device changes every batch, but summaries stay ≤ 1 per second.
        late.clear()
        usleep(5_000_000)
        let live = late.messages(on: "edgemotion/ha-e2e/summary").count
        #expect(live >= 3 && live <= 6, "\(live) summaries in 5 s")

        // Home Assistant restarts: its birth message makes the agent announce again.
        late.clear()
        let ha = try TestSubscriber(url: broker.url, patterns: ["unused/x"])
        _ = try ha.client.publish(topic: "homeassistant/status", string: "online", qos: 1, retain: false)
        // (The birth message itself also arrives on `homeassistant/#`; count only what the agent sends.)
        let again = late.waitFor(count: 14, timeout: .seconds(10)) { $0.topic.hasSuffix("/config") && !$0.payload.isEmpty }
        #expect(again.count >= 14, "\(again.count) configs re-announced")
        let summaryAgain = late.waitFor(count: 1, topic: "edgemotion/ha-e2e/summary", timeout: .seconds(5))
        #expect(!summaryAgain.isEmpty)

        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 5) == 0, "agent log:\n\(agent.log)")
    }

    /// A previous run in a north frame left a retained heading config; a run in the default frame
    /// (no heading) clears it, so a late subscriber (Home Assistant after a restart) sees none.
    @Test func frameChangeClearsTheRetainedHeadingConfig() throws {
        let broker = try MosquittoBroker.start()
        let headingTopic = "homeassistant/sensor/ha-retire/heading/config"
        let seeder = try TestSubscriber(url: broker.url, patterns: ["unused/x"])
        _ = try seeder.client.publish(topic: headingTopic, string: #"{"unique_id":"edgemotion_ha-retire_heading","state_topic":"s"}"#,
                                      qos: 1, retain: true)
        let before = try TestSubscriber(url: broker.url, patterns: [headingTopic])
        #expect(before.waitFor(count: 1, topic: headingTopic, timeout: .seconds(5)).count == 1, "seeded config is retained")

        let config = try AgentProcess.writeConfig("""
        device: { id: ha-retire }
        source: { type: simulator, rate: 100, simulator: { scenario: rotation, seed: 3, real_time: true } }
        home_assistant: { enabled: true }
        """)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url, "--duration", "3"])
        #expect(agent.waitForExit(timeout: 10) == 0, "agent log:\n\(agent.log)")

        let late = try TestSubscriber(url: broker.url, patterns: ["homeassistant/#"])
        let configs = late.waitFor(count: 9, topic: nil, timeout: .seconds(5))
        #expect(configs.count >= 9, "the agent announced its entities")
        usleep(500_000)
        #expect(late.messages(on: headingTopic).isEmpty, "heading config still retained: \(late.messages(on: headingTopic).map(\.payloadString))")
    }

    /// With `events.enabled` the tilt/vibration entities are announced and the agent's own
    /// state topics carry the fields their templates read.
    @Test func eventEntitiesAreAnnouncedAndFedByTheAgentsStateTopics() throws {
        let broker = try MosquittoBroker.start()
        let config = try AgentProcess.writeConfig("""
        device: { id: ha-events }
        source: { type: simulator, rate: 100, simulator: { scenario: stationary, seed: 3, real_time: true } }
        events: { enabled: true }
        home_assistant: { enabled: true }
        """)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url, "--duration", "4"])
        #expect(agent.waitForExit(timeout: 12) == 0, "agent log:\n\(agent.log)")
        let late = try TestSubscriber(url: broker.url, patterns: ["homeassistant/#", "edgemotion/ha-events/state/#"])
        _ = late.waitFor(count: 19, topic: nil, timeout: .seconds(5))
        // The retained copies arrive in any order, and there are more than 19 configs: wait for
        // the state topics themselves.
        _ = late.waitFor(count: 1, topic: "edgemotion/ha-events/state/tilt", timeout: .seconds(5))
        _ = late.waitFor(count: 1, topic: "edgemotion/ha-events/state/vibration", timeout: .seconds(5))
        for topic in ["homeassistant/sensor/ha-events/tilt/config", "homeassistant/sensor/ha-events/vibration_rms/config",
                      "homeassistant/binary_sensor/ha-events/running/config", "homeassistant/event/ha-events/shock/config",
                      "homeassistant/event/ha-events/free_fall/config", "homeassistant/event/ha-events/tamper/config",
                      "homeassistant/event/ha-events/tap/config"] {
            let m = try #require(late.messages(on: topic).first, "\(topic) retained; agent log:\n\(agent.log)")
            #expect(HomeAssistantSchema.problems(topic: m.topic, payload: m.payload, statusTopic: "edgemotion/ha-events/status").isEmpty)
        }
        let tilt = try #require(late.messages(on: "edgemotion/ha-events/state/tilt").first)
        let t = try #require(try JSONSerialization.jsonObject(with: Data(tilt.payload)) as? [String: Any])
        #expect(t["tilt_deg"] is Double || t["tilt_deg"] is Int, "\(tilt.payloadString)")
        let vib = try #require(late.messages(on: "edgemotion/ha-events/state/vibration").first)
        let v = try #require(try JSONSerialization.jsonObject(with: Data(vib.payload)) as? [String: Any])
        #expect(v["rms_ms2"] != nil && v["running"] is Bool, "\(vib.payloadString)")
    }

    /// Home Assistant restarting while the device lies still subscribes afresh: steps, cadence,
    /// distance and pace must come from the retained pedometer, not stay *unknown*.
    @Test func thePedometerSummaryIsRetainedForALateSubscriber() throws {
        let broker = try MosquittoBroker.start()
        let state = NSTemporaryDirectory() + "edgemotion-ha-ped-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let config = try AgentProcess.writeConfig("""
        device: { id: ha-ped }
        source: { type: simulator, rate: 50, simulator: { scenario: "walking:60,stationary", seed: 2, real_time: false } }
        activity: { pedometer_interval_s: 1 }
        home_assistant: { enabled: true }
        state_directory: \(state)
        """)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url, "--duration", "4"])
        #expect(agent.waitForExit(timeout: 15) == 0, "agent log:\n\(agent.log.suffix(2000))")
        let late = try TestSubscriber(url: broker.url, patterns: ["edgemotion/ha-ped/pedometer"])
        let m = try #require(late.waitFor(count: 1, topic: "edgemotion/ha-ped/pedometer", timeout: .seconds(5)).first,
                             "no retained pedometer; agent log:\n\(agent.log.suffix(2000))")
        #expect(m.retain)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(m.payload)) as? [String: Any])
        #expect((json["steps"] as? Int ?? 0) > 50, "\(m.payloadString)")
        for key in ["cadence_steps_per_s", "distance_m", "pace_s_per_m"] { #expect(json[key] != nil, "\(key) in \(m.payloadString)") }
    }

    @Test func disabledByDefaultAnnouncesNothing() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["homeassistant/#", "edgemotion/+/summary"])
        let agent = try AgentProcess(["run", "--broker", broker.url, "--device-id", "plain", "--duration", "2"])
        #expect(agent.waitForExit(timeout: 8) == 0, "agent log:\n\(agent.log)")
        #expect(sub.messages.isEmpty, "\(sub.messages.map(\.topic))")
    }
}
