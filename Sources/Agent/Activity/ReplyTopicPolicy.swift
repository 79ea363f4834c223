/// Where a requester may make the agent publish an answer (`reply_to`, the MQTT 5 response
/// topic, or the default `<request topic>/response`).
///
/// Refused — the request is answered with nothing, and logged once per topic:
/// - an empty topic, one longer than `maximumTopicBytes`, one with a NUL, `+` or `#`, or one
///   starting with `$` (the broker's own `$SYS` tree);
/// - a topic inside a device tree — the agent's own `<topic_prefix>`, every device's tree of the
///   same `topic_prefix` template (`{device_id}` as any one level), and `edgemotion/<any>` — except
///   its reply levels `<tree>/replies/…` and `<tree>/query/<kind>/response`: otherwise a requester
///   could make the agent publish on its own `status` or `events/…`, on another device's
///   `cmd/stream`, or on its own request topics (it would read its answer as a new request);
/// - with `control.reply_topic_prefix` set, any topic outside it, except the agent's own reply levels.
struct ReplyTopicPolicy: Sendable, Equatable {
    /// The documented level for answers inside a device tree: `<tree>/replies/…`.
    static let repliesLevel = "replies"
    /// Query kinds whose default answer topic is `<tree>/query/<kind>/response`.
    static let queryKinds = ["activity", "pedometer", "recordings", "latest"]
    /// Longest reply topic accepted, bytes.
    static let maximumTopicBytes = 512

    /// The agent's own resolved prefix, as levels.
    let ownTree: [Substring]
    /// Every protected tree, levels with `+` for "any one level".
    let trees: [[Substring]]
    /// `control.reply_topic_prefix`; empty: any topic outside the device trees.
    let allowedPrefix: String

    /// - Parameters:
    ///   - prefix: the agent's resolved topic prefix (`edgemotion/dev-1`).
    ///   - template: `mqtt.topic_prefix` as configured (`edgemotion/{device_id}`).
    ///   - allowedPrefix: `control.reply_topic_prefix`.
    init(prefix: String, template: String = "edgemotion/{device_id}", allowedPrefix: String = "") {
        ownTree = prefix.split(separator: "/", omittingEmptySubsequences: false)
        // `MQTTSettings.deviceIDPlaceholder`, spelled out so the policy stands alone (fuzz target).
        let family = template.replacing("{device_id}", with: "+")
        var trees = [ownTree]
        for t in [family, "edgemotion/+"] {
            let levels = t.split(separator: "/", omittingEmptySubsequences: false)
            if !trees.contains(levels) { trees.append(levels) }
        }
        self.trees = trees
        self.allowedPrefix = allowedPrefix
    }

    /// Why the agent must not publish on `topic`, or nil when it may.
    func problem(_ topic: String) -> String? {
        if topic.isEmpty { return "empty reply topic" }
        if topic.utf8.count > Self.maximumTopicBytes { return "reply topic longer than \(Self.maximumTopicBytes) bytes" }
        if topic.utf8.contains(0) { return "reply topic contains a NUL character" }
        if topic.contains("+") || topic.contains("#") { return "reply topic contains a wildcard (+ or #)" }
        if topic.hasPrefix("$") { return "reply topic in the broker's reserved $ tree" }
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        for tree in trees {
            guard let rest = Self.remainder(levels, under: tree) else { continue }
            if Self.isReplyLevel(rest) {
                if tree == ownTree { return nil }  // the agent's own reply levels pass any prefix rule
                continue
            }
            let name = tree.joined(separator: "/")
            return "reply topic inside the device tree \(name)/: only \(name)/\(Self.repliesLevel)/… or \(name)/query/<kind>/response may be used"
        }
        if !allowedPrefix.isEmpty, !topic.hasPrefix(allowedPrefix) {
            return "reply topic outside control.reply_topic_prefix (\(allowedPrefix))"
        }
        return nil
    }

    /// The levels of `levels` after `tree` when `levels` is inside it (or is it), nil otherwise.
    private static func remainder(_ levels: [Substring], under tree: [Substring]) -> ArraySlice<Substring>? {
        guard levels.count >= tree.count else { return nil }
        for (a, b) in zip(levels, tree) where b != "+" && a != b { return nil }
        return levels[tree.count...]
    }

    /// `replies/<one or more levels>` or `query/<kind>/response`.
    private static func isReplyLevel(_ rest: ArraySlice<Substring>) -> Bool {
        let r = Array(rest)
        if r.count >= 2, r[0] == repliesLevel { return true }
        return r.count == 3 && r[0] == "query" && queryKinds.contains(String(r[1])) && r[2] == "response"
    }
}
