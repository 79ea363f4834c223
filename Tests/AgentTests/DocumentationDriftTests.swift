import Foundation
import Testing
@testable import Agent

/// Documentation that cannot drift from the code: every configuration key the loader accepts is
/// documented, and every command-line option a command handles is in its `--help`.
@Suite("Documentation drift")
struct DocumentationDriftTests {
    static let root = ConfigTestSupport.packageRoot

    /// Every Swift file under `folder`, with its text.
    static func sources(_ folder: String) -> [(String, String)] {
        let base = root.appendingPathComponent(folder)
        let files = (FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []).filter { $0.hasSuffix(".swift") }
        return files.compactMap { f in (try? String(contentsOf: base.appendingPathComponent(f), encoding: .utf8)).map { (f, $0) } }
    }

    /// The words of every `static let keys = [...]` in the configuration loader, found in the
    /// source text so that a section added later is checked without editing this test.
    static func loaderKeys() -> [String: [String]] {
        var found: [String: [String]] = [:]
        let pattern = try! NSRegularExpression(pattern: #"static let keys\s*=\s*\[([^\]]*)\]"#)
        for (file, text) in sources("Sources/Agent/Config") {
            for m in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let list = String(text[Range(m.range(at: 1), in: text)!])
                let words = list.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \n\"")) }.filter { !$0.isEmpty }
                found[file, default: []] += words
            }
        }
        return found
    }

    /// The shipped binary links no Foundation (and so no ICU data): 3 MB .deb instead of 15 MB.
    /// Tests, benchmarks' peers and scripts may use it; nothing under Sources/ may.
    @Test func noShippedModuleImportsFoundation() {
        // CoreMotion is the one exception: a source-compatibility layer whose API is Foundation's
        // types (Date, OperationQueue, NSNumber, NSError), as iOS code expects.
        let offenders = Self.sources("Sources").filter { path, text in
            !path.hasPrefix("CoreMotion/") && text.split(separator: "\n").contains {
                $0.hasPrefix("import Foundation") || $0.hasPrefix("import FoundationEssentials") || $0.hasPrefix("@_exported import Foundation")
            }
        }.map(\.0)
        #expect(offenders.isEmpty, "these import Foundation (see docs/packaging.md): \(offenders.sorted())")
    }

    @Test func theLoaderKeyListsAreFoundInTheSource() {
        let keys = Self.loaderKeys().values.flatMap { $0 }
        // Known keys of several sections, so a broken scan fails instead of checking nothing.
        for k in ["state_directory", "topic_prefix", "publish_rate", "discovery_prefix", "max_file_mb", "format"] {
            #expect(keys.contains(k), "\(k) not found by the scan")
        }
        #expect(Set(keys).isSuperset(of: AgentConfiguration.keys + HomeAssistantSettings.keys + RecorderSettings.keys + StreamSettings.keys))
    }

    @Test func everyKeyTheLoaderAcceptsIsInConfigurationMarkdownAndTheReferenceFile() throws {
        let markdown = try String(contentsOf: Self.root.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        let yaml = try String(contentsOf: Self.root.appendingPathComponent("config/edgemotion.yaml"), encoding: .utf8)
        for (file, keys) in Self.loaderKeys() {
            for key in keys {
                let inMarkdown = markdown.contains("`\(key)`") || markdown.contains(".\(key)`") || markdown.contains("`\(key).")
                #expect(inMarkdown, "docs/configuration.md does not document '\(key)' (from \(file))")
                #expect(yaml.contains(key + ":"), "config/edgemotion.yaml does not show '\(key)' (from \(file))")
            }
        }
    }

    @Test func everyCommandIsListedAndEveryOptionItHandlesIsInItsHelp() {
        let overview = CommandLineTool.overview
        for c in CommandLineTool.commands {
            #expect(overview.contains("  \(c.name) "), "--help does not list \(c.name)")
            #expect(c.usage.hasPrefix("usage: edgemotion \(c.name)"), "\(c.name) --help does not start with its usage line")
            #expect(!c.summary.isEmpty)
        }
        let option = try! NSRegularExpression(pattern: #""(--[a-z][a-z0-9-]*)""#)
        let name = try! NSRegularExpression(pattern: #"let name = "([a-z-]+)""#)
        // One chunk per command type: a file may define several.
        let chunks = Self.sources("Sources/Agent/CLI").flatMap { file, text in
            text.components(separatedBy: "\nstruct ").map { (file, $0) }
        }
        for (file, text) in chunks {
            let range = NSRange(text.startIndex..., in: text)
            guard let n = name.firstMatch(in: text, range: range).map({ String(text[Range($0.range(at: 1), in: text)!]) }),
                  let command = CommandLineTool.commands.first(where: { $0.name == n }) else { continue }
            for m in option.matches(in: text, range: range) {
                let o = String(text[Range(m.range(at: 1), in: text)!])
                if o == "--help" { continue }
                #expect(command.usage.contains(o), "\(file): '\(n)' handles \(o) but its --help does not mention it")
            }
        }
    }
}
