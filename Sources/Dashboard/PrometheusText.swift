/// Writes the Prometheus text exposition format (version 0.0.4): one `# HELP` and `# TYPE` per
/// metric family, then its samples. Names and label values are the caller's; label values are
/// escaped (`\\`, `"`, newline), numbers printed so Prometheus parses them back exactly.
public struct PrometheusText: Sendable {
    public enum Kind: String, Sendable { case counter, gauge, info, stateset, untyped }

    public private(set) var text = ""
    private var families: Set<String> = []

    public init() {}

    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Starts a family; samples follow with `sample`. A family is declared once.
    public mutating func family(_ name: String, _ kind: Kind, _ help: String) {
        precondition(!families.contains(name), "metric family \(name) declared twice")
        families.insert(name)
        // The 0.0.4 text format knows counter, gauge, summary, histogram, untyped: an info
        // metric is a gauge of 1 with its labels; a state set a gauge per state.
        let type = switch kind {
        case .counter: "counter"
        case .gauge, .info, .stateset: "gauge"
        case .untyped: "untyped"
        }
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(type)\n"
    }

    /// One sample line: `name{labels} value`.
    public mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{"
            text += labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",")
            text += "}"
        }
        text += " " + Self.number(value) + "\n"
    }

    public mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Int) {
        sample(name, labels, Double(value))
    }

    public mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: UInt64) {
        sample(name, labels, Double(value))
    }

    /// A family with a single sample.
    public mutating func single(_ name: String, _ kind: Kind, _ help: String, _ value: Double, _ labels: [(String, String)] = []) {
        family(name, kind, help)
        sample(name, labels, value)
    }

    /// Integers print without a fraction, others with enough digits to round-trip.
    static func number(_ v: Double) -> String {
        if v.isNaN { return "NaN" }
        if v.isInfinite { return v > 0 ? "+Inf" : "-Inf" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }

    static func escapeLabel(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(c)
            }
        }
        return out
    }

    static func escapeHelp(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }
}

private extension String {
    func replacingOccurrences(of a: String, with b: String) -> String {
        split(separator: a, omittingEmptySubsequences: false).joined(separator: b)
    }
}
