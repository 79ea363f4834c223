import Foundation
import Testing
import Messaging
import TestSupport
@testable import Agent

/// Pressing the announced buttons the way Home Assistant does (publishing the button's
/// `payload_press` to its `command_topic`, QoS 0, not retained: HA's defaults) on a real
/// mosquitto, against the real agent binary.
@Suite("Home Assistant buttons on a broker", .serialized, .ownThread)
struct HomeAssistantButtonTests {
    func json(_ m: MQTTMessage) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(m.payload)) as? [String: Any]) ?? [:]
    }

    /// The retained config of button `id`: (command_topic, payload_press).
    func button(_ sub: TestSubscriber, _ node: String, _ id: String) throws -> (topic: String, press: String) {
        let topic = "homeassistant/button/\(node)/\(id)/config"
        let m = try #require(sub.waitFor(count: 1, topic: topic, timeout: .seconds(10)).first, "\(topic) announced")
        let c = json(m)
        return (try #require(c["command_topic"] as? String), try #require(c["payload_press"] as? String))
    }

    /// The next message on `topic` (after `clear`) that satisfies `predicate`.
    func next(_ sub: TestSubscriber, _ topic: String, timeout: Double = 5, _ predicate: ([String: Any]) -> Bool) -> [String: Any]? {
        sub.waitFor(count: 1, timeout: .milliseconds(Int64(timeout * 1000))) { $0.topic == topic && predicate(self.json($0)) }.first.map(json)
    }

    @Test func pressingEachButtonPerformsItsAction() throws {
        let broker = try MosquittoBroker.start()
        let state = NSTemporaryDirectory() + "edgemotion-ha-buttons-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: state) }
        // gyro_bias_dps: the simulator adds (b, −0.6 b, 0.4 b) °/s to its true rates (SimulatorOptions).
        let config = try AgentProcess.writeConfig("""
        device: { id: ha-buttons }
        source: { type: simulator, rate: 100, simulator: { scenario: stationary, seed: 5, real_time: true, gyro_bias_dps: 0.5 } }
        fusion: { gyro_bias_learning: false }
        events: { enabled: true, thresholds: { lid: { above_deg: 45, below_deg: 20, device_class: opening } } }
        control: { enabled: true }
        home_assistant: { enabled: true }
        state_directory: \(state)
        """)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        defer { if agent.isRunning { agent.signal(SIGKILL) } }
        let sub = try TestSubscriber(url: broker.url, patterns: ["homeassistant/button/#", "homeassistant/binary_sensor/#",
                                                                  "edgemotion/ha-buttons/cmd/+/result", "edgemotion/ha-buttons/state/#",
                                                                  "edgemotion/ha-buttons/meta"])
        let ha = try TestSubscriber(url: broker.url, patterns: ["unused/x"])
        // What Home Assistant learnt from discovery, read before the checks below clear the log.
        var buttons: [String: (topic: String, press: String)] = [:]
        for id in ["set_level", "arm_tamper", "disarm_tamper", "calibrate_gyro"] { buttons[id] = try button(sub, "ha-buttons", id) }
        func press(_ id: String) throws -> String {
            let b = try #require(buttons[id])
            _ = try ha.client.publish(topic: b.topic, string: b.press, qos: 0, retain: false)
            return b.topic
        }

        // The threshold's binary sensor is announced with its device class from config.
        let lid = try #require(sub.waitFor(count: 1, topic: "homeassistant/binary_sensor/ha-buttons/threshold_lid/config", timeout: .seconds(10)).first)
        #expect(json(lid)["device_class"] as? String == "opening" && json(lid)["state_topic"] as? String == "edgemotion/ha-buttons/state/threshold/lid")
        #expect(HomeAssistantSchema.problems(topic: lid.topic, payload: lid.payload, statusTopic: "edgemotion/ha-buttons/status").isEmpty)
        #expect(next(sub, "edgemotion/ha-buttons/state/threshold/lid", timeout: 10) { $0["on"] as? Bool == false } != nil,
                "lid threshold state; agent log:\n\(agent.log.suffix(2000))")

        // Set level: the reply says ok, the zero pose is kept in the state directory.
        sub.clear()
        #expect(try press("set_level") == "edgemotion/ha-buttons/cmd/events")
        let level = next(sub, "edgemotion/ha-buttons/cmd/events/result") { _ in true }
        #expect(level?["ok"] as? Bool == true && level?["action"] as? String == "set_level" && level?["id"] as? String == "home-assistant",
                "\(level ?? [:]); agent log:\n\(agent.log.suffix(2000))")
        let zeroFile = state + "/events-zero"
        let deadline = Date().addingTimeInterval(5)
        while !FileManager.default.fileExists(atPath: zeroFile) && Date() < deadline { usleep(100_000) }
        #expect(FileManager.default.fileExists(atPath: zeroFile), "set level keeps the zero pose")
        #expect(next(sub, "edgemotion/ha-buttons/state/tilt") { ($0["tilt_deg"] as? Double ?? 99) < 1 } != nil, "tilt ≈ 0 after set level")

        // Arm / disarm tamper: the retained state/motion follows.
        sub.clear()
        _ = try press("arm_tamper")
        #expect(next(sub, "edgemotion/ha-buttons/cmd/events/result") { $0["action"] as? String == "arm_tamper" }?["ok"] as? Bool == true)
        #expect(next(sub, "edgemotion/ha-buttons/state/motion") { $0["tamper_armed"] as? Bool == true } != nil, "armed")
        sub.clear()
        _ = try press("disarm_tamper")
        #expect(next(sub, "edgemotion/ha-buttons/cmd/events/result") { $0["action"] as? String == "disarm_tamper" }?["ok"] as? Bool == true)
        #expect(next(sub, "edgemotion/ha-buttons/state/motion") { $0["tamper_armed"] as? Bool == false } != nil, "disarmed")

        // Calibrate gyroscope: started at once, done after its 10 s with the simulator's bias,
        // kept in the calibration file, and the restarted pipeline loads it.
        sub.clear()
        #expect(try press("calibrate_gyro") == "edgemotion/ha-buttons/cmd/calibrate")
        let started = next(sub, "edgemotion/ha-buttons/cmd/calibrate/result") { $0["state"] as? String == "started" }
        #expect(started?["ok"] as? Bool == true, "\(started ?? [:])")
        let done = next(sub, "edgemotion/ha-buttons/cmd/calibrate/result", timeout: 30) { $0["state"] as? String == "done" || $0["ok"] as? Bool == false }
        #expect(done?["ok"] as? Bool == true, "\(done ?? [:]); agent log:\n\(agent.log.suffix(3000))")
        let bias = done?["bias_dps"] as? [Double] ?? []
        let truth = [0.5, -0.3, 0.2]
        #expect(bias.count == 3 && zip(bias, truth).allSatisfy { abs($0 - $1) < 0.05 }, "bias \(bias) °/s, simulated \(truth) °/s")
        #expect((done?["samples"] as? Int ?? 0) >= 990, "10 s at 100 Hz")
        let file = state + "/edgemotion-calibration.txt"
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        #expect(text.contains("gyro.bias = ") && text.contains("sensor = ha-buttons"), "\(text)")
        let meta = next(sub, "edgemotion/ha-buttons/meta", timeout: 10) { (($0["calibration"] as? String) ?? "\($0["calibration"] ?? "")").contains("loaded") }
        #expect(meta != nil, "meta after the restart says the calibration is loaded; agent log:\n\(agent.log.suffix(3000))")

        // A second press while none runs is accepted again; an invalid one is refused with the reason.
        sub.clear()
        _ = try ha.client.publish(topic: "edgemotion/ha-buttons/cmd/calibrate", string: #"{"action":"gyro","duration_s":0}"#, qos: 1)
        let refused = next(sub, "edgemotion/ha-buttons/cmd/calibrate/result") { _ in true }
        #expect(refused?["ok"] as? Bool == false && (refused?["error"] as? String ?? "").contains("duration_s"), "\(refused ?? [:])")

        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0, "agent log:\n\(agent.log.suffix(3000))")
    }

    /// Without `control.enabled` the agent obeys no command: no button is announced (a previous
    /// run's are cleared), and a press Home Assistant still had gets no reply and changes nothing.
    @Test func withoutControlThereAreNoButtonsAndPressesAreIgnored() throws {
        let broker = try MosquittoBroker.start()
        let state = NSTemporaryDirectory() + "edgemotion-ha-nocontrol-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: state) }
        let seeder = try TestSubscriber(url: broker.url, patterns: ["unused/x"])
        let stale = "homeassistant/button/ha-nocontrol/set_level/config"
        _ = try seeder.client.publish(topic: stale, string: #"{"unique_id":"edgemotion_ha-nocontrol_set_level","command_topic":"edgemotion/ha-nocontrol/cmd/events"}"#,
                                      qos: 1, retain: true)
        let config = try AgentProcess.writeConfig("""
        device: { id: ha-nocontrol }
        source: { type: simulator, rate: 100, simulator: { scenario: stationary, seed: 5, real_time: true } }
        events: { enabled: true }
        home_assistant: { enabled: true }
        state_directory: \(state)
        """)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        defer { if agent.isRunning { agent.signal(SIGKILL) } }
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/ha-nocontrol/cmd/+/result", "edgemotion/ha-nocontrol/status"])
        #expect(sub.waitFor(count: 1, topic: "edgemotion/ha-nocontrol/status", timeout: .seconds(10)).first?.payloadString == "online")
        usleep(1_000_000)
        _ = try seeder.client.publish(topic: "edgemotion/ha-nocontrol/cmd/events", string: #"{"id":"home-assistant","action":"set_level"}"#, qos: 0)
        usleep(2_000_000)
        #expect(sub.messages(on: "edgemotion/ha-nocontrol/cmd/events/result").isEmpty)
        #expect(!FileManager.default.fileExists(atPath: state + "/events-zero"))
        let late = try TestSubscriber(url: broker.url, patterns: ["homeassistant/button/#"])
        usleep(1_000_000)
        #expect(late.messages.filter { !$0.payload.isEmpty }.isEmpty, "buttons still retained: \(late.messages.map(\.topic))")
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0, "agent log:\n\(agent.log.suffix(3000))")
    }

    /// A retained config of ours that this configuration no longer has (a removed or renamed
    /// tilt threshold) is cleared; a config under the same node id made by someone else is kept.
    @Test func staleEntitiesOfThisDeviceAreRemovedAndOthersKept() throws {
        let broker = try MosquittoBroker.start()
        let seeder = try TestSubscriber(url: broker.url, patterns: ["unused/x"])
        let old = "homeassistant/binary_sensor/ha-stale/threshold_old/config"
        let foreign = "homeassistant/sensor/ha-stale/battery/config"
        _ = try seeder.client.publish(topic: old, string: #"{"unique_id":"edgemotion_ha-stale_threshold_old","state_topic":"edgemotion/ha-stale/state/threshold/old"}"#,
                                      qos: 1, retain: true)
        _ = try seeder.client.publish(topic: foreign, string: #"{"unique_id":"other_tool_battery","state_topic":"x/battery"}"#, qos: 1, retain: true)
        let config = try AgentProcess.writeConfig("""
        device: { id: ha-stale }
        source: { type: simulator, rate: 100, simulator: { scenario: stationary, seed: 5, real_time: true } }
        events: { enabled: true, thresholds: { lid: { above_deg: 45 } } }
        home_assistant: { enabled: true }
        """)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url, "--duration", "3"])
        #expect(agent.waitForExit(timeout: 10) == 0, "agent log:\n\(agent.log.suffix(3000))")
        let late = try TestSubscriber(url: broker.url, patterns: ["homeassistant/#"])
        _ = late.waitFor(count: 22, timeout: .seconds(5)) { _ in true }
        usleep(500_000)
        #expect(late.messages(on: old).isEmpty, "stale threshold config still retained")
        #expect(late.messages(on: foreign).count == 1, "someone else's config is kept")
        #expect(late.messages(on: "homeassistant/binary_sensor/ha-stale/threshold_lid/config").count == 1)
    }
}
