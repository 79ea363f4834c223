extension ConfigReader {
    /// A list of non-empty texts (`[a, b]` or one `- item` per line); `[]` when absent or null.
    /// `check` may return a problem for an item, reported at that item.
    mutating func stringList(_ section: ConfigSection?, _ key: String, _ check: (String) -> String? = { _ in nil }) -> [String] {
        guard let section, let node = section[key], !node.isNull else { return [] }
        guard case .sequence(let items) = node.content else {
            report(section.path(key), at: node.mark, "expected a list, e.g. [mqtt://a:1883, mqtt://b:1883], found \(node.summary)")
            return []
        }
        var out: [String] = []
        for (i, item) in items.enumerated() {
            let path = section.path(key) + "[\(i)]"
            guard let text = item.scalar, !item.isNull, !text.isEmpty else {
                report(path, at: item.mark, "expected a text value, found \(item.summary)")
                continue
            }
            if let problem = check(text) {
                report(path, at: item.mark, problem)
                continue
            }
            out.append(text)
        }
        return out
    }
}
