import EdgeMotion
import Logging
import Messaging
import MotionCore

/// Everything `home_assistant.enabled` adds to a running agent: the summary `PipelineOutput`
/// and the discovery announcer. `AgentRunner` holds one (or `nil` when disabled) and calls
/// `start()` before connecting and `announce()` on every connection.
final class HomeAssistantIntegration: Sendable {
    let summary: SummaryPublisher
    let announcer: HomeAssistantAnnouncer

    /// `nil` when `home_assistant.enabled` is false.
    init?(configuration c: AgentConfiguration, deviceID: String, topics: TopicLayout, client: MQTTClient,
          sourceName: String, sensors: IMUSample.Contents) {
        guard c.homeAssistant.enabled else { return nil }
        let northReferenced = c.fusion.referenceFrame == .xMagneticNorthZVertical || c.fusion.referenceFrame == .xTrueNorthZVertical
        let discovery = HomeAssistantDiscovery(settings: c.homeAssistant, deviceID: deviceID, topics: topics, model: sourceName,
                                               hasHeading: northReferenced && sensors.contains(.magnetometer))
        summary = SummaryPublisher(client: client, topic: discovery.summaryTopic, settings: c.homeAssistant,
                                   clock: WallClockMapping.current())
        announcer = HomeAssistantAnnouncer(discovery: discovery, client: client, summary: summary)
    }

    /// The pipeline outputs to register.
    var outputs: [any PipelineOutput] { [summary] }

    /// Subscribes to Home Assistant's birth topic and returns the handler for its messages (the
    /// agent routes `birthTopic` messages to it); call before `client.start()`.
    func messageHandler() -> (@Sendable (MQTTMessage) -> Void)? {
        do {
            return try announcer.subscribe()
        } catch {
            Logger(label: "home-assistant").warning("cannot subscribe to Home Assistant's status; discovery is only sent on connection",
                                                    ["topic": announcer.discovery.birthTopic, "error": "\(error)"])
            return nil
        }
    }

    /// Publishes the discovery documents (on every connection).
    func announce() { announcer.announce() }
}
