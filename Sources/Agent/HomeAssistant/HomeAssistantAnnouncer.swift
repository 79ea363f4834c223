import Logging
import Messaging

/// Publishes the discovery documents (retained, QoS 1) and keeps them announced: on every
/// (re)connection to the broker, and whenever Home Assistant publishes `online` on
/// `<discovery_prefix>/status` (its birth message after a restart), followed by the current
/// summary so entities are not `unknown` until the next change.
final class HomeAssistantAnnouncer: Sendable {
    let discovery: HomeAssistantDiscovery
    let client: MQTTClient
    private let summary: SummaryPublisher
    private let entities: [HomeAssistantEntity]
    private let log = Logger(label: "home-assistant")

    init(discovery: HomeAssistantDiscovery, client: MQTTClient, summary: SummaryPublisher) {
        self.discovery = discovery
        self.client = client
        self.summary = summary
        entities = discovery.entities
    }

    /// Subscribes to Home Assistant's status topic; call before `client.start()`.
    /// Returns the message handler to install in `client.onMessage`.
    func subscribe() throws(MQTTError) -> @Sendable (MQTTMessage) -> Void {
        try client.subscribe(discovery.birthTopic, qos: 1)
        let birthTopic = discovery.birthTopic
        return { [weak self] message in
            guard let self, message.topic == birthTopic else { return }
            if message.payloadString == "online" {
                self.log.info("Home Assistant is online; re-announcing", ["topic": birthTopic])
                self.announce()
                self.summary.republish()
            }
        }
    }

    /// Publishes every discovery document (retained, QoS 1). Safe from the client's callbacks.
    func announce() {
        var failed = 0
        for e in entities {
            do {
                _ = try client.publish(topic: e.configTopic, string: e.config.serialized, qos: 1, retain: true)
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
