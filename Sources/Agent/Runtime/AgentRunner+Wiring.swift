import EdgeMotion
import Logging
import Messaging
import Platform
import MotionCore

extension AgentRunner {
    /// Why the agent could not be built (already logged); `exitStatus` is what the process returns:
    /// 2 for settings (no broker, invalid MQTT settings), 1 for an event spool that cannot be opened
    /// or an outbox thread that cannot be created.
    public struct SetupFailure: Error, CustomStringConvertible {
        public let exitStatus: Int32
        public let description: String
    }

    /// What `init` builds before anything runs: the running parts every other part uses.
    struct Wiring {
        let deviceID: String
        let topics: TopicLayout
        let client: MQTTClient
        let outbox: Outbox
        let publisher: MQTTPublisher
    }

    /// Configuration advice (`ConfigurationAdvice`: readable secrets, rate-ineffective settings), then the device id, the topics and the MQTT client (settings: status
    /// 2), then the outbox (its spool or its pump thread: status 1) and the publisher over it.
    /// Each failure is logged as it was when `run` built these.
    static func wire(_ c: AgentConfiguration, threadStarter: @escaping ThreadStarter) throws(SetupFailure) -> Wiring {
        let log = Logger(label: "agent")
        ConfigurationAdvice.log(c, to: log)
        guard c.mqtt.broker != nil else {
            log.error("no broker configured", ["hint": "set mqtt.broker in the config or pass --broker mqtt://host:port (scripts/demo starts a private broker)"])
            throw SetupFailure(exitStatus: 2, description: "no broker configured")
        }
        let deviceID = c.device.resolvedID()
        let topics: TopicLayout, client: MQTTClient
        do {
            topics = try TopicLayout(prefix: c.mqtt.resolvedTopicPrefix(deviceID: deviceID))
            client = try makeClient(c, topics: topics, threadStarter: threadStarter)
        } catch {
            log.error("invalid MQTT settings", ["error": "\(error)"])
            throw SetupFailure(exitStatus: 2, description: "invalid MQTT settings: \(error)")
        }
        let outbox: Outbox
        switch makeOutbox(c, log: log, threadStarter: threadStarter) {
        case .success(let o): outbox = o
        case .failure(.spool): throw SetupFailure(exitStatus: 1, description: "cannot open the event spool")
        case .failure(.thread(let t)): throw SetupFailure(exitStatus: 1, description: t.description)
        }
        let publisher = MQTTPublisher(outbox: outbox, routes: routes(c, topics), clock: WallClockMapping.current())
        return Wiring(deviceID: deviceID, topics: topics, client: client, outbox: outbox, publisher: publisher)
    }
}
