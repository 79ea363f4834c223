
extension Outbox {
    /// `settings.counterNaming`'s name for `topic`, unless that name belongs to a registered stream
    /// on another topic: then the whole topic, so stream counters count stream batches only.
    func counterName(forTopic topic: String, _ st: State) -> String {
        let name = settings.counterNaming.name(forTopic: topic)
        if let i = st.streamNames.firstIndex(of: name), st.streamTopics[i] != topic { return topic }
        return name
    }
}
