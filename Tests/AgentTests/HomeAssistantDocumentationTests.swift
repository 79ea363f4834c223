import Foundation
import Testing
import Messaging
@testable import Agent

/// The example automations in docs/home-assistant.md are valid Home Assistant automation YAML
/// for the entities the agent announces.
///
/// Home Assistant's rules, transcribed from its documentation (home-assistant.io
/// `docs/automation/yaml`, `docs/automation/trigger` "State trigger", `docs/scripts/conditions`
/// "Template condition", `docs/scripts` "Call a service"/action, `docs/automation/modes`; the
/// `triggers:`/`trigger:`/`actions:`/`action:` spelling of 2024.10 and later):
/// - an automation is a mapping with `triggers` and `actions` (non-empty lists) and optionally
///   `id`, `alias`, `description`, `mode`, `max`, `max_exceeded`, `variables`,
///   `trigger_variables`, `conditions`, `initial_state`, `trace`;
/// - `mode` is `single`, `restart`, `queued` or `parallel`;
/// - a state trigger has `entity_id` and optionally `from`, `to`, `not_from`, `not_to`,
///   `attribute`, `for` (`HH:MM:SS`), `id`, `variables`, `enabled`;
/// - a template condition has `value_template`, a template;
/// - an action item calling a service has `action: <domain>.<service>` and optionally `data`,
///   `target`, `response_variable`, `continue_on_error`, `enabled`, `alias`.
/// Entity ids are Home Assistant's for an MQTT entity of a device: slugify(device name + " " +
/// entity name) under the entity's domain.
@Suite("Home Assistant documentation")
struct HomeAssistantDocumentationTests {
    static let automationKeys: Set<String> = ["id", "alias", "description", "mode", "max", "max_exceeded", "variables",
                                              "trigger_variables", "triggers", "conditions", "actions", "initial_state", "trace"]
    static let stateTriggerKeys: Set<String> = ["trigger", "entity_id", "from", "to", "not_from", "not_to", "attribute", "for",
                                                "id", "variables", "enabled"]
    static let actionKeys: Set<String> = ["action", "data", "target", "response_variable", "continue_on_error", "enabled", "alias"]

    /// Home Assistant's `slugify` for ASCII names: lower case, runs of other characters → `_`.
    static func slugify(_ s: String) -> String {
        var out = ""
        for c in s.lowercased() {
            if c.isASCII && (c.isLetter || c.isNumber) { out.append(c) } else if !out.hasSuffix("_") { out.append("_") }
        }
        return out.trimmingCharacters(in: CharacterSet(charactersIn: "_"))
    }

    /// The ```yaml blocks of the "Example automations" section.
    static func exampleBlocks() throws -> [String] {
        let text = try String(contentsOf: ConfigTestSupport.packageRoot.appendingPathComponent("docs/home-assistant.md"), encoding: .utf8)
        guard let start = text.range(of: "## Example automations") else { return [] }
        let section = text[start.upperBound...].prefix { _ in true }
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        return section[..<end].components(separatedBy: "```yaml\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
    }

    /// Entity ids the agent's discovery gives Home Assistant for the three example devices.
    static func announcedEntityIDs() throws -> Set<String> {
        var ids: Set<String> = []
        for device in ["garage", "washer", "crate"] {
            var d = HomeAssistantDiscovery(settings: HomeAssistantSettings(enabled: true), deviceID: device,
                                           topics: try TopicLayout(prefix: "edgemotion/\(device)"), model: "bmi160",
                                           hasHeading: false, hasEvents: true)
            d.thresholds = device == "garage" ? [ThresholdEntity(name: "garage_door", deviceClass: "garage_door")] : []
            d.hasControl = true
            for e in d.entities {
                guard case .string(let name)? = e.config["name"], case .object(let dev)? = e.config["device"],
                      case .string(let deviceName)? = dev.first(where: { $0.0 == "name" })?.1 else { continue }
                ids.insert(e.component + "." + slugify(deviceName + " " + name))
            }
        }
        return ids
    }

    func mapping(_ n: YAMLNode?) -> [String: YAMLNode]? {
        guard let n, case .mapping(let pairs) = n.content else { return nil }
        return Dictionary(pairs.compactMap { p in p.key.scalar.map { ($0, p.value) } }, uniquingKeysWith: { a, _ in a })
    }

    func list(_ n: YAMLNode?) -> [YAMLNode] {
        guard let n, case .sequence(let items) = n.content else { return [] }
        return items
    }

    @Test func exampleAutomationsAreValidForTheAnnouncedEntities() throws {
        let blocks = try Self.exampleBlocks()
        #expect(blocks.count == 3, "garage door, washer, crate examples")
        let entities = try Self.announcedEntityIDs()
        #expect(entities.contains("binary_sensor.edgemotion_garage_garage_door"), "\(entities.sorted())")
        var referenced: [String] = []
        for (i, block) in blocks.enumerated() {
            let root = try YAMLParser.parse(block, fileName: "docs/home-assistant.md example \(i + 1)")
            let automations = list(root)
            #expect(automations.count == 1, "example \(i + 1) is a list of one automation")
            for a in automations {
                let m = try #require(mapping(a), "example \(i + 1) is a mapping")
                #expect(Set(m.keys).isSubset(of: Self.automationKeys), "example \(i + 1): unknown keys \(Set(m.keys).subtracting(Self.automationKeys))")
                if let mode = m["mode"]?.scalar { #expect(["single", "restart", "queued", "parallel"].contains(mode)) }
                let triggers = list(m["triggers"]), actions = list(m["actions"])
                #expect(!triggers.isEmpty && !actions.isEmpty, "example \(i + 1) needs triggers and actions")
                for t in triggers {
                    let tm = try #require(mapping(t))
                    #expect(tm["trigger"]?.scalar == "state", "example \(i + 1): state triggers only")
                    #expect(Set(tm.keys).isSubset(of: Self.stateTriggerKeys), "example \(i + 1): \(Set(tm.keys).subtracting(Self.stateTriggerKeys))")
                    let entity = try #require(tm["entity_id"]?.scalar)
                    referenced.append(entity)
                    if let f = tm["for"]?.scalar {
                        #expect(f.range(of: #"^\d{2}:\d{2}:\d{2}$"#, options: .regularExpression) != nil, "for: \(f)")
                    }
                    for key in ["from", "to"] {
                        // A binary sensor's states are the strings "on"/"off": quoted, or YAML 1.1 makes them booleans.
                        if let node = tm[key], entity.hasPrefix("binary_sensor.") {
                            guard case .scalar(let v, let style) = node.content else { Issue.record("\(key) not a scalar"); continue }
                            #expect(["on", "off"].contains(v) && style != .plain, "example \(i + 1): \(key): \(v) must be quoted \"on\"/\"off\"")
                        }
                    }
                }
                for c in list(m["conditions"]) {
                    let cm = try #require(mapping(c))
                    #expect(cm["condition"]?.scalar == "template" && cm["value_template"]?.scalar?.contains("{{") == true)
                }
                for act in actions {
                    let am = try #require(mapping(act))
                    #expect(Set(am.keys).isSubset(of: Self.actionKeys), "example \(i + 1): \(Set(am.keys).subtracting(Self.actionKeys))")
                    let service = try #require(am["action"]?.scalar)
                    #expect(service.range(of: #"^[a-z_]+\.[a-z0-9_]+$"#, options: .regularExpression) != nil, "action \(service)")
                    let message = try #require(mapping(am["data"])?["message"]?.scalar)
                    for id in message.matches(of: /'((?:binary_sensor|event|sensor)\.[a-z0-9_]+)'/).map({ String($0.1) }) { referenced.append(id) }
                }
            }
        }
        for id in referenced { #expect(entities.contains(id), "\(id) is not an entity the agent announces") }
        #expect(Set(referenced).isSuperset(of: ["binary_sensor.edgemotion_garage_garage_door", "binary_sensor.edgemotion_washer_running",
                                                 "event.edgemotion_crate_free_fall"]))
    }

    /// The crate example reads the free-fall event's attributes; the agent's event payload
    /// (docs/topics.md `events/motion`, free_fall) has them.
    @Test func crateExampleReadsFieldsTheFreeFallEventHas() throws {
        let block = try #require(try Self.exampleBlocks().last)
        let attributes = block.matches(of: /attributes\.([a-z_]+)/).map { String($0.1) }
        #expect(Set(attributes) == ["drop_height_m", "duration_s"], "\(attributes)")
        let documented = #"{"type":"free_fall","t_s":12.351,"onset_s":12.001,"duration_s":0.35,"drop_height_m":0.601}"#
        let json = try #require(try JSONSerialization.jsonObject(with: Data(documented.utf8)) as? [String: Any])
        for a in attributes { #expect(json[a] != nil, "\(a)") }
    }
}
