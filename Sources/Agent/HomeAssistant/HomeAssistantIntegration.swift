import EdgeMotion
import Logging
import Messaging
import MotionCore
import Sensors
import Synchronization

/// Everything `home_assistant.enabled` adds to a running agent: the summary `PipelineOutput`
/// and the discovery announcer. `AgentRunner` holds one (or `nil` when disabled), calls
/// `attach` for every MQTT client it installs (before starting it), `announce()` on every
/// connection, and offers it each incoming message (`handle`).
final class HomeAssistantIntegration: Sendable {
    let discovery: HomeAssistantDiscovery
    let summary: SummaryPublisher
    private let client: ClientBox
    private let entities: [HomeAssistantEntity]
    private let log = Logger(label: "home-assistant")

    /// `nil` when `home_assistant.enabled` is false.
    init?(configuration c: AgentConfiguration, deviceID: String, topics: TopicLayout, sourceName: String, sensors: IMUSample.Contents,
          auxiliaryKinds: [AuxiliaryKind] = []) {
        guard c.homeAssistant.enabled else { return nil }
        let northReferenced = c.fusion.referenceFrame == .xMagneticNorthZVertical || c.fusion.referenceFrame == .xTrueNorthZVertical
        var discovery = HomeAssistantDiscovery(settings: c.homeAssistant, deviceID: deviceID, topics: topics,
                                               model: HomeAssistantDiscovery.model(sourceName: sourceName),
                                               hasHeading: northReferenced && sensors.contains(.magnetometer),
                                               hasEvents: c.events.enabled)
        discovery.auxiliaryKinds = auxiliaryKinds
        self.discovery = discovery
        entities = discovery.entities
        client = ClientBox()
        summary = SummaryPublisher(client: client, topic: discovery.summaryTopic, settings: c.homeAssistant,
                                   clock: WallClockMapping.current())
    }

    /// The pipeline outputs to register.
    var outputs: [any PipelineOutput] { [summary] }

    /// Uses `newClient` from now on and subscribes it to Home Assistant's status topic
    /// (remembered by the client across reconnections). Call before `newClient.start()`.
    func attach(_ newClient: MQTTClient) {
        client.set(newClient)
        do {
            try newClient.subscribe(discovery.birthTopic, qos: 1)
        } catch {
            log.warning("cannot subscribe to Home Assistant's status; discovery is only sent on connection",
                        ["topic": discovery.birthTopic, "error": "\(error)"])
        }
    }

    /// Handles Home Assistant's birth message (`online` on `<discovery_prefix>/status`): announces
    /// again and re-sends the newest summary. Returns whether the message was Home Assistant's.
    func handle(_ message: MQTTMessage) -> Bool {
        guard message.topic == discovery.birthTopic else { return false }
        if message.payloadString == "online" {
            log.info("Home Assistant is online; re-announcing", ["topic": discovery.birthTopic])
            announce()
            summary.republish()
        }
        return true
    }

    /// Publishes every discovery document (retained, QoS 1) and clears the retired ones (an empty
    /// retained payload). Safe from the client's callbacks.
    func announce() {
        guard let c = client.get() else { return }
        var failed = 0
        for e in entities {
            do {
                _ = try c.publish(topic: e.configTopic, string: e.config.serialized, qos: 1, retain: true)
            } catch {
                failed += 1
            }
        }
        // An empty retained config removes an entity a previous run announced and this one does not.
        for topic in discovery.retiredConfigTopics {
            do {
                _ = try c.publish(topic: topic, string: "", qos: 1, retain: true)
            } catch {
                failed += 1
            }
        }
        if failed > 0 {
            log.warning("some discovery documents were not published", ["failed": "\(failed)", "of": "\(entities.count)"])
        } else {
            log.debug("discovery announced", ["entities": "\(entities.count)", "prefix": discovery.settings.discoveryPrefix])
        }
    }
}

/// The MQTT client currently installed (a reload may replace it).
final class ClientBox: Sendable {
    private let client = Mutex<MQTTClient?>(nil)
    func set(_ c: MQTTClient) { client.withLock { $0 = c } }
    func get() -> MQTTClient? { client.withLock { $0 } }
}
