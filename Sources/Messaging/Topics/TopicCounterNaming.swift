/// How an `Outbox` names the counters of an event or state topic (stream batches count under the
/// name given to `registerStream`): the topic's last level, or its last two levels when the last
/// one alone would be ambiguous — below a level in `parentLevels` or when the last level is in
/// `leafLevels`. Distinct names keep each topic's `produced = acknowledged + dropped + queued`
/// exact. The levels are the topic tree's, so the tree's owner supplies them
/// (`TopicLayout.counterNaming`); the outbox only applies them.
public struct TopicCounterNaming: Sendable, Equatable {
    /// Levels whose children are named with them (`events` → `events/activity`).
    public var parentLevels: Set<String>
    /// Last levels named with their parent (`events` → `pedometer/events`).
    public var leafLevels: Set<String>

    public init(parentLevels: Set<String> = [], leafLevels: Set<String> = []) {
        self.parentLevels = parentLevels
        self.leafLevels = leafLevels
    }

    /// The last level of every topic (no two-level names).
    public static let lastLevel = TopicCounterNaming()

    /// The counter name of `topic`.
    public func name(forTopic topic: String) -> String {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard let last = levels.last else { return topic }
        if levels.count >= 2 {
            let parent = levels[levels.count - 2]
            if parentLevels.contains(String(parent)) || leafLevels.contains(String(last)) { return parent + "/" + last }
        }
        return String(last)
    }
}

extension TopicLayout {
    /// The counter names of this layout's topics: `…/health` → `health`, `…/events/activity` →
    /// `events/activity`, `…/latest/motion` → `latest/motion`, `…/pedometer/events` →
    /// `pedometer/events` (a retained `latest/accelerometer` snapshot must not count as an
    /// `accelerometer` stream batch).
    public static let counterNaming = TopicCounterNaming(parentLevels: ["events", "latest"], leafLevels: ["events"])

    /// `counterNaming.name(forTopic:)`.
    public static func counterName(forTopic topic: String) -> String { counterNaming.name(forTopic: topic) }
}
