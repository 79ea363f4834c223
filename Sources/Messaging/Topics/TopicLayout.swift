/// EdgeMotion's topic tree under one device prefix, plus MQTT topic validation.
///
/// ```
/// <prefix>/status            online / offline (will), QoS 1, retained
/// <prefix>/meta              device and sensor description, QoS 1, retained
/// <prefix>/sensor/<name>     batched samples (accelerometer, gyroscope, magnetometer, …), QoS 0
/// <prefix>/motion            device motion, QoS 0
/// <prefix>/activity          current activity, QoS 1, retained
/// <prefix>/pedometer         steps, cadence, distance, QoS 1
/// <prefix>/stats             pipeline statistics, QoS 0
/// <prefix>/health            agent health counters, QoS 0
/// <prefix>/altitude          relative altitude from pressure (config auxiliary:), QoS 0
/// <prefix>/summary           Home Assistant summary
/// <prefix>/events/<name>     events, QoS 1, spooled (motion, activity, status, synthetic)
/// <prefix>/pedometer/events  pedometer events, QoS 1, spooled
/// <prefix>/latest/<name>     retained snapshots (accelerometer, gyroscope, magnetometer, motion)
/// <prefix>/state/<name>      retained states (tilt, vibration, motion, threshold/<name>)
/// <prefix>/query/<name>      requests (activity, pedometer, recordings, latest); answers on
///                            the response topic, `reply_to`, or `<request topic>/response`
/// <prefix>/cmd/<name>        commands (control.enabled); results on `cmd/<name>/result`
/// <prefix>/vibration/spectrum  vibration band RMS (events.vibration.spectrum)
/// ```
/// This type is the one home of topic names: no other source joins topic levels (LayeringTests
/// scans for it). Topic strings are built once, so publishing does not concatenate per message.
/// The outbox's counter names come from here too (`counterNaming`).
public struct TopicLayout: Sendable, Equatable {
    /// Device prefix with placeholders already substituted, e.g. `edgemotion/board-7`.
    public let prefix: String
    public let status: String
    public let meta: String
    public let motion: String
    public let activity: String
    public let pedometer: String
    public let stats: String
    public let health: String
    /// `<prefix>/altitude`: relative altitude since start from the `auxiliary:` barometer.
    public let altitude: String
    /// `<prefix>/summary`: the Home Assistant summary state.
    public let summary: String
    /// `<prefix>/pedometer/events`.
    public let pedometerEvents: String
    /// `<prefix>/cmd/+`: every command.
    public let commandPattern: String
    /// `<prefix>/vibration/spectrum`: the vibration spectrum (`events.vibration.spectrum`).
    public let vibrationSpectrum: String

    /// - Throws: `.invalidTopic` naming the prefix when it has wildcards, empty levels, a leading or
    ///   trailing `/`, starts with `$`, or contains NUL.
    public init(prefix: String) throws(MQTTError) {
        try TopicLayout.validatePublishTopic(prefix)
        if prefix.hasPrefix("$") {
            throw MQTTError(.invalidTopic, context: "topic prefix \"\(prefix)\"",
                            detail: "topics starting with $ are reserved for the broker ($SYS)")
        }
        self.prefix = prefix
        status = prefix + "/status"
        meta = prefix + "/meta"
        motion = prefix + "/motion"
        activity = prefix + "/activity"
        pedometer = prefix + "/pedometer"
        stats = prefix + "/stats"
        health = prefix + "/health"
        altitude = prefix + "/altitude"
        summary = prefix + "/summary"
        pedometerEvents = prefix + "/pedometer/events"
        commandPattern = prefix + "/cmd/+"
        vibrationSpectrum = prefix + "/vibration/spectrum"
    }

    /// `<prefix>/sensor/<name>`, e.g. `edgemotion/board-7/sensor/accelerometer`.
    /// `name` should be a single topic level; check user-supplied names with `validateLevel` first.
    public func sensor(_ name: String) -> String { prefix + "/sensor/" + name }

    /// `<prefix>/events/<name>`: an event (`motion`, `activity`, `status`, `synthetic`).
    public func event(_ name: String) -> String { prefix + "/events/" + name }

    /// `<prefix>/latest/<name>`: a retained snapshot (`accelerometer`, …, `motion`).
    public func latest(_ name: String) -> String { prefix + "/latest/" + name }

    /// `<prefix>/state/<name>`: a retained state (`tilt`, `vibration`, `motion`).
    public func state(_ name: String) -> String { prefix + "/state/" + name }

    /// `<prefix>/state/threshold/<name>`: a tilt threshold's retained state.
    public func threshold(_ name: String) -> String { state("threshold/" + name) }

    /// `<prefix>/query/<name>`: a request topic (`activity`, `pedometer`, `recordings`, `latest`).
    public func query(_ name: String) -> String { prefix + "/query/" + name }

    /// `<prefix>/cmd/<name>`: a command topic.
    public func command(_ name: String) -> String { prefix + "/cmd/" + name }

    /// `<prefix>/cmd/<name>/result`: where a command's result goes.
    public func commandResult(_ name: String) -> String { command(name) + "/result" }

    /// The `<name>` of a `<prefix>/cmd/<name>` topic; nil for any other topic.
    public func commandName(of topic: String) -> String? {
        let head = prefix + "/cmd/"
        return topic.hasPrefix(head) ? String(topic.dropFirst(head.utf8.count)) : nil
    }

    /// `<request>/response`: where a query is answered when it names no response topic.
    public static func defaultResponse(to requestTopic: String) -> String { requestTopic + "/response" }

    /// `topic` below `prefix` (`sensor/accelerometer`), or `topic` itself when it is outside.
    public static func relative(_ topic: String, toPrefix prefix: String) -> String {
        let head = prefix + "/"
        return topic.hasPrefix(head) ? String(topic.dropFirst(head.utf8.count)) : topic
    }

    // MARK: Home Assistant discovery (its own tree, under `discovery_prefix`)

    /// `<discovery>/<component>/<node>/<object>/config`: a discovery config topic.
    public static func homeAssistantConfig(discoveryPrefix: String, component: String, nodeID: String, objectID: String) -> String {
        [discoveryPrefix, component, nodeID, objectID, "config"].joined(separator: "/")
    }

    /// `<discovery>/+/<node>/+/config`: every config topic of one node.
    public static func homeAssistantConfigPattern(discoveryPrefix: String, nodeID: String) -> String {
        homeAssistantConfig(discoveryPrefix: discoveryPrefix, component: "+", nodeID: nodeID, objectID: "+")
    }

    /// `<discovery>/status`: Home Assistant's birth and will.
    public static func homeAssistantStatus(discoveryPrefix: String) -> String { discoveryPrefix + "/status" }

    /// The `[component, node, object, "config"]` levels of a config topic under `discoveryPrefix`;
    /// nil for any other topic.
    public static func homeAssistantConfigLevels(_ topic: String, discoveryPrefix: String) -> [Substring]? {
        let head = discoveryPrefix + "/"
        guard topic.hasPrefix(head), topic.hasSuffix("/config") else { return nil }
        let levels = topic.dropFirst(head.utf8.count).split(separator: "/", omittingEmptySubsequences: false)
        return levels.count == 4 ? levels : nil
    }

    /// Every fixed topic of the layout (for logs and documentation).
    public var fixedTopics: [String] { [status, meta, motion, activity, pedometer, stats, health] }

    // MARK: Validation

    /// A topic name to publish to: non-empty, ≤ 65535 UTF-8 bytes, no `+` / `#`, no NUL, no empty level
    /// (so no leading, trailing or doubled `/`).
    public static func validatePublishTopic(_ topic: String) throws(MQTTError) {
        func fail(_ what: String) -> MQTTError { MQTTError(.invalidTopic, context: "topic \"\(topic)\"", detail: what) }
        guard !topic.isEmpty else { throw fail("the topic is empty") }
        guard topic.utf8.count <= 65535 else { throw fail("the topic is longer than 65535 bytes") }
        var levelLength = 0
        var level = 1
        for b in topic.utf8 {
            switch b {
            case UInt8(ascii: "+"), UInt8(ascii: "#"):
                throw fail("wildcard '\(Character(Unicode.Scalar(b)))' in level \(level); wildcards are only allowed in subscriptions")
            case 0: throw fail("NUL character in level \(level)")
            case UInt8(ascii: "/"):
                if levelLength == 0 { throw fail("level \(level) is empty (leading or doubled '/')") }
                levelLength = 0
                level += 1
            default: levelLength += 1
            }
        }
        if levelLength == 0 { throw fail("level \(level) is empty (trailing '/')") }
    }

    /// A subscription filter: like a topic, but `+` may fill a whole level and `#` may be the whole last
    /// level. Empty levels are allowed by MQTT in filters but rejected here too (they are always mistakes
    /// in our configurations).
    public static func validateSubscriptionPattern(_ pattern: String) throws(MQTTError) {
        func fail(_ what: String) -> MQTTError { MQTTError(.invalidTopic, context: "subscription \"\(pattern)\"", detail: what) }
        guard !pattern.isEmpty else { throw fail("the pattern is empty") }
        guard pattern.utf8.count <= 65535 else { throw fail("the pattern is longer than 65535 bytes") }
        let levels = pattern.split(separator: "/", omittingEmptySubsequences: false)
        for (i, level) in levels.enumerated() {
            if level.isEmpty { throw fail("level \(i + 1) is empty") }
            if level.contains("\0") { throw fail("NUL character in level \(i + 1)") }
            if level.contains("#") && (level != "#" || i != levels.count - 1) {
                throw fail("'#' must be the whole last level")
            }
            if level.contains("+") && level != "+" { throw fail("'+' must fill a whole level (level \(i + 1) is \"\(level)\")") }
        }
    }

    /// One topic level for user-supplied names (sensor names, device ids): non-empty, no `/`, `+`, `#`, NUL.
    public static func validateLevel(_ name: String) throws(MQTTError) {
        guard !name.isEmpty, !name.contains(where: { $0 == "/" || $0 == "+" || $0 == "#" || $0 == "\0" }) else {
            throw MQTTError(.invalidTopic, context: "topic level \"\(name)\"",
                            detail: "a level must be non-empty and must not contain '/', '+', '#' or NUL")
        }
    }
}
