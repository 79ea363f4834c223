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
/// ```
/// Topic strings are built once here, so publishing does not concatenate strings per message.
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
    }

    /// `<prefix>/sensor/<name>`, e.g. `edgemotion/board-7/sensor/accelerometer`.
    /// `name` should be a single topic level; check user-supplied names with `validateLevel` first.
    public func sensor(_ name: String) -> String { prefix + "/sensor/" + name }

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
