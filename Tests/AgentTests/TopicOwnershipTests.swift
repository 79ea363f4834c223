import Foundation
import Testing

/// `TopicLayout` (Sources/Messaging/Topics) is the one home of topic names: no other shipped
/// source joins a prefix and a level, or writes one of the agent's levels after a `/`. A topic
/// built elsewhere drifts from the documented tree (docs/topics.md) without any test noticing.
@Suite("Topic ownership")
struct TopicOwnershipTests {
    /// The agent's topic levels (docs/topics.md), as they would appear in a concatenation.
    static let levels = "status|meta|motion|activity|pedometer|stats|health|altitude|summary|sensor|events|latest|state|query|cmd|response|result|config|vibration"

    /// The forbidden forms.
    static var patterns: [NSRegularExpression] { [
        #"[Pp]refix\s*\+\s*"/"#,                                  // prefix + "/…"
        #"\+\s*"/(\#(levels))(/|")"#,                            // x + "/events/…", x + "/status"
        #"\\\([^)]*[Pp]refix[^)]*\)/"#,                          // "\(prefix)/…"
        #""(events|latest|state|query|cmd|sensor)/"#,            // "events/" + name
    ].map { try! NSRegularExpression(pattern: $0) } }

    /// Whether a line of code (not a comment) builds a topic.
    static func builds(_ line: String) -> Bool {
        if line.trimmingCharacters(in: .whitespaces).hasPrefix("//") { return false }
        return patterns.contains { $0.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil }
    }

    /// `file:line: code` of every non-comment line under `Sources/` and `Examples/` (outside the
    /// owner) that builds a topic by concatenation or interpolation.
    static func offenders() throws -> (files: Int, lines: [String]) {
        var files = 0
        var out: [String] = []
        for folder in ["Sources", "Examples"] {
            let base = ConfigTestSupport.packageRoot.appendingPathComponent(folder)
            let paths = (FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []).filter { $0.hasSuffix(".swift") }
            for path in paths where !(folder == "Sources" && path.hasPrefix("Messaging/Topics/")) {
                files += 1
                let text = try String(contentsOf: base.appendingPathComponent(path), encoding: .utf8)
                for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = String(line)
                    if builds(code) {
                        out.append("\(folder)/\(path):\(n + 1): \(code.trimmingCharacters(in: .whitespaces))")
                    }
                }
            }
        }
        return (files, out)
    }

    @Test("no Swift source outside TopicLayout builds a topic by concatenation")
    func onlyTopicLayoutBuildsTopics() throws {
        let (files, lines) = try Self.offenders()
        #expect(files > 100, "the scan found only \(files) Swift files")
        #expect(lines.isEmpty, "build these topics with TopicLayout:\n\(lines.joined(separator: "\n"))")
    }

    @Test("the scan recognises each form it forbids")
    func theScanSeesEachForm() {
        // Written by hand: one line per forbidden form, and lines that are not topics.
        let forbidden = [#"let t = prefix + "/events/motion""#, #"x = topics.prefix + "/cmd/" + name"#,
                         #"let r = request + "/response""#, #"let c = "\(settings.discoveryPrefix)/+/config""#, #"let e = "events/" + name"#]
        let allowed = [#"zeroPath = stateDirectory + "/events-zero""#, #"let p = root + "/trigger""#, #"// prefix + "/events/motion""#]
        for line in forbidden { #expect(Self.builds(line), "not flagged: \(line)") }
        for line in allowed { #expect(!Self.builds(line), "flagged: \(line)") }
    }
}
