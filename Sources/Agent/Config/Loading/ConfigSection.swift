/// One mapping of the configuration file (`source`, `streams.motion`, …) after its keys were
/// checked: only known keys remain, first occurrence wins.
struct ConfigSection {
    /// Dotted path of this mapping (`""` for the root).
    let path: String
    /// Where the mapping starts.
    let mark: YAMLNode.Mark
    private let values: [String: YAMLNode]

    init(path: String, mark: YAMLNode.Mark, values: [String: YAMLNode]) {
        self.path = path
        self.mark = mark
        self.values = values
    }

    /// The value node of `key`, `nil` when absent.
    subscript(key: String) -> YAMLNode? { values[key] }

    /// Dotted path of `key` inside this section.
    func path(_ key: String) -> String { path.isEmpty ? key : path + "." + key }
}
