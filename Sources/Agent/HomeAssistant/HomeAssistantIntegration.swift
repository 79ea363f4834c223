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
    private let announcedTopics: Set<String>
    /// Stale configs already cleared this run (each is cleared once; the broker echoes the clear).
    private let cleared = Mutex<Set<String>>([])
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
        discovery.hasSpectrum = c.events.detectors.vibration.spectrum.enabled
        discovery.hasOrientation = c.events.detectors.enabled.contains(.orientation)
        let classes = c.events.deviceClasses
        discovery.thresholds = c.events.detectors.tiltThresholds.enumerated().map { i, t in
            ThresholdEntity(name: t.name, deviceClass: i < classes.count ? classes[i] : nil)
        }
        discovery.hasControl = c.control.enabled
        discovery.hasGyroscope = sensors.contains(.gyroscope)
        discovery.configurationURL = DashboardLink.url(http: c.http, configured: c.homeAssistant.configurationURL)
        self.discovery = discovery
        entities = discovery.entities
        announcedTopics = Set(entities.map(\.configTopic))
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
            // Our own retained configs, to clear those of entities no longer announced (a
            // renamed or removed tilt threshold, whose name no configuration remembers).
            try newClient.subscribe(discovery.ownConfigPattern, qos: 1)
        } catch {
            log.warning("cannot subscribe to Home Assistant's status; discovery is only sent on connection",
                        ["topic": discovery.birthTopic, "error": "\(error)"])
        }
    }

    /// Handles Home Assistant's birth message (`online` on `<discovery_prefix>/status`): announces
    /// again and re-sends the newest summary. Returns whether the message was Home Assistant's.
    func handle(_ message: MQTTMessage) -> Bool {
        if discovery.isOwnConfigTopic(message.topic) {
            clearIfStale(message)
            return true
        }
        guard message.topic == discovery.birthTopic else { return false }
        if message.payloadString == "online" {
            log.info("Home Assistant is online; re-announcing", ["topic": discovery.birthTopic])
            announce()
            summary.republish()
        }
        return true
    }

    /// A retained config under our node id that this run does not announce, made by an EdgeMotion
    /// agent for this device (its `unique_id` starts with `edgemotion_<node_id>_`), is cleared
    /// with an empty retained payload, which makes Home Assistant delete the entity.
    private func clearIfStale(_ m: MQTTMessage) {
        guard !m.payload.isEmpty, !announcedTopics.contains(m.topic),
              discovery.isOwnEntityConfig(m.payload) else { return }
        let first = cleared.withLock { $0.insert(m.topic).inserted }
        guard first, let c = client.get() else { return }
        _ = try? c.publish(topic: m.topic, string: "", qos: 1, retain: true)
        log.notice("removed a Home Assistant entity this configuration no longer has", ["topic": m.topic])
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
