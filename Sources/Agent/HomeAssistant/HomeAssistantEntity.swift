/// One entity announced to Home Assistant: its config topic and retained config payload.
public struct HomeAssistantEntity: Sendable, Equatable {
    /// Home Assistant platform: `sensor`, `binary_sensor`, `event`, `button`.
    public var component: String
    /// `object_id` level of the discovery topic (`[a-zA-Z0-9_-]`), e.g. `roll`.
    public var objectID: String
    /// `<discovery_prefix>/<component>/<node_id>/<object_id>/config`.
    public var configTopic: String
    /// The discovery document (full key names, no abbreviations).
    public var config: DiscoveryJSON
}
