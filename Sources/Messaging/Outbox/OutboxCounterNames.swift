
extension Outbox {
    /// The counter name of an event or state topic (stream batches count under the name given to
    /// `registerStream`): its last level (`…/health` → `health`, `…/activity` → `activity`), or its
    /// last two levels when the last one alone would be ambiguous — below `events` or `latest`
    /// (`…/events/activity` → `events/activity`, `…/latest/motion` → `latest/motion`) or a level
    /// named `events` (`…/pedometer/events` → `pedometer/events`). Distinct names keep each
    /// topic's `produced = acknowledged + dropped + queued` exact: a retained `latest/accelerometer`
    /// snapshot must not count as an `accelerometer` stream batch.
    public static func counterName(forTopic topic: String) -> String {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard let last = levels.last else { return topic }
        if levels.count >= 2 {
            let parent = levels[levels.count - 2]
            if parent == "events" || parent == "latest" || last == "events" { return parent + "/" + last }
        }
        return String(last)
    }

    /// `counterName(forTopic:)`, unless that name belongs to a registered stream on another topic:
    /// then the whole topic, so stream counters count stream batches only.
    func counterName(forTopic topic: String, _ st: State) -> String {
        let name = Outbox.counterName(forTopic: topic)
        if let i = st.streamNames.firstIndex(of: name), st.streamTopics[i] != topic { return topic }
        return name
    }
}
