import Messaging
import Platform
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One `cmd/<name>` request to a *running* agent, from the command line: connects to the
/// configuration's broker (`mqtt.broker`, then `mqtt.fallback_brokers`; its credentials and TLS)
/// as a client of its own (`<client id>-cli-<pid>`, no will), subscribes to
/// `<prefix>/cmd/<name>/result`, publishes the request with a fresh `id` (QoS 1) and waits for
/// the reply carrying that id. The broker's ACL decides whether this user may command the device
/// (docs/home-assistant.md, "who may press them"); the agent obeys only with `control.enabled`.
struct AgentCommandRequest {
    /// What went wrong, with the exit status the CLI returns for it.
    enum Failure: Error, CustomStringConvertible {
        /// No broker configured, or its options are invalid (a password file that cannot be read).
        case configuration(String)
        /// No configured broker accepted the connection within the timeout.
        case unreachable(String)
        /// Connected and published, but no reply with our id came within the timeout.
        case noReply(String)
        /// The agent answered `ok:false` (its reason), or the broker refused the publish.
        case refused(String)
        /// The client's network thread could not be created (`pthread_create` failed).
        case thread(ThreadStartError)

        var description: String {
            switch self {
            case .configuration(let s), .unreachable(let s), .noReply(let s), .refused(let s): s
            case .thread(let t): t.description
            }
        }

        /// 2 configuration; 69 (EX_UNAVAILABLE) no broker; 75 (EX_TEMPFAIL) no reply; 1 refused
        /// or no network thread.
        var exitStatus: Int32 {
            switch self {
            case .configuration: 2
            case .unreachable: 69
            case .noReply: 75
            case .refused, .thread: 1
            }
        }
    }

    let configuration: AgentConfiguration
    /// The command's name: the last level of `cmd/<name>` (`events`).
    let name: String
    /// How long to wait for the connection, and then again for the reply, seconds.
    let timeout: Double
    /// Starts the client's network thread (tests make `pthread_create` fail).
    var threadStarter: ThreadStarter = platformThreadStarter

    /// Sends `{"id":…,<fields>}` (`fields`: JSON members without braces, e.g.
    /// `"action":"set_level"`) and returns the agent's reply (raw JSON) when it says `ok:true`.
    func send(fields: String) throws(Failure) -> String {
        let c = configuration
        let urls = AgentRunner.brokerURLs(c)
        guard !urls.isEmpty else {
            throw .configuration("no broker configured: set mqtt.broker in the configuration or give --broker URL")
        }
        let topics: TopicLayout
        do { topics = try TopicLayout(prefix: c.mqtt.resolvedTopicPrefix(deviceID: c.device.resolvedID())) } catch {
            throw .configuration("mqtt.topic_prefix: \(error)")
        }
        let commandTopic = topics.command(name), resultTopic = topics.commandResult(name)
        var tried: [String] = []
        for url in urls {
            var options: MQTTConnectionOptions
            do { options = try c.connectionOptions(brokerURL: url, statusTopic: topics.status) } catch {
                throw .configuration("\(url): \(error)")
            }
            options.clientID += "-cli-\(getpid())"
            options.will = nil   // the agent's `status` will is the agent's, not ours
            options.reconnect.connectTimeout = .milliseconds(Int64(timeout * 1000))
            let client: MQTTClient
            do { client = try MQTTClient(options: options, threadStarter: threadStarter) } catch { throw .configuration("\(url): \(error)") }
            let exchange = Exchange()
            client.onMessage = { m in if m.topic == resultTopic { exchange.received(m.payload) } }
            client.onPublishRefused = { _, reason in exchange.refused(reason) }
            defer { client.disconnect(timeout: .milliseconds(500)) }
            do {
                try client.subscribe(resultTopic, qos: 1)
                try client.start()
            } catch {
                // No thread is no broker's fault: the next broker would fail the same way.
                if case .threadStart(let t) = error.kind { throw .thread(t) }
                tried.append("\(url): \(error)")
                continue
            }
            let connectBy = MonotonicClock.nowNanos() + UInt64(timeout * 1e9)
            while !(client.isConnected && client.statistics.subscriptionsAcknowledged >= 1), MonotonicClock.nowNanos() < connectBy {
                usleep(5_000)
            }
            guard client.isConnected, client.statistics.subscriptionsAcknowledged >= 1 else {
                tried.append("\(url): \(client.lastFailure.map { "\($0)" } ?? "no connection within \(FixedPoint.string(timeout, digits: 1)) s")")
                continue
            }
            let id = "cli-\(getpid())-\(String(UInt32.random(in: 0 ... .max), radix: 16))"
            do {
                _ = try client.publish(topic: commandTopic, string: "{\"id\":\"\(id)\",\(fields)}", qos: 1)
            } catch {
                throw .refused("publishing to \(commandTopic) on \(url) failed: \(error)")
            }
            let replyBy = MonotonicClock.nowNanos() + UInt64(timeout * 1e9)
            while MonotonicClock.nowNanos() < replyBy {
                if let reason = exchange.refusal {
                    throw .refused("the broker at \(url) refused the publish to \(commandTopic) (MQTT reason \(reason)): this MQTT user needs write access to it (broker ACL)")
                }
                for payload in exchange.takeReplies() {
                    guard let reply = AgentCommandReply(payload), reply.id == id else { continue }   // someone else's request
                    let text = String(decoding: payload, as: UTF8.self)
                    guard reply.ok else { throw .refused("the agent refused: \(reply.error ?? text)") }
                    return text
                }
                usleep(5_000)
            }
            throw .noReply("""
                no reply on \(resultTopic) within \(FixedPoint.string(timeout, digits: 1)) s (broker \(url)): is the agent \
                running with control.enabled: true and this topic prefix (--device-id), and may this MQTT user \
                publish to \(commandTopic) (broker ACL)?
                """)
        }
        throw .unreachable("cannot reach the broker: \(tried.joined(separator: "; "))")
    }

    /// What the client's network thread hands to the waiting command line.
    private final class Exchange: Sendable {
        private let state = Mutex<(replies: [[UInt8]], refusal: Int32?)>(([], nil))

        func received(_ payload: [UInt8]) { state.withLock { if $0.replies.count < 64 { $0.replies.append(payload) } } }
        func refused(_ reason: Int32) { state.withLock { $0.refusal = $0.refusal ?? reason } }
        var refusal: Int32? { state.withLock { $0.refusal } }
        func takeReplies() -> [[UInt8]] { state.withLock { v in defer { v.replies.removeAll() } ; return v.replies } }
    }
}
