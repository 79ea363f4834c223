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

    /// Every row of docs/configuration.md's key tables, as (full key path, default cell).
    static func markdownKeyRows() throws -> [(key: String, defaultCell: String)] {
        let markdown = try String(contentsOf: root.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        var prefix = ""
        var rows: [(String, String)] = []
        for line in markdown.split(separator: "\n").map(String.init) {
            if line.hasPrefix("### ") || line.hasPrefix("#### ") {
                let parts = line.split(separator: "`")
                prefix = parts.count >= 2 ? String(parts[1]) : ""
                continue
            }
            guard line.hasPrefix("| `") else { continue }
            let cells = line.replacingOccurrences(of: "\\|", with: "/").split(separator: "|", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 5, let key = cells[1].split(separator: "`").first.map(String.init) else { continue }
            let full = prefix.isEmpty || key.hasPrefix(prefix + ".") ? key : prefix + "." + key
            rows.append((full, cells[3]))
        }
        return rows
    }

    /// The node at `path` (dot-separated) in a parsed YAML mapping.
    static func node(_ root: YAMLNode?, _ path: String) -> YAMLNode? {
        var node = root
        for part in path.split(separator: ".") {
            guard case .mapping(let pairs)? = node?.content,
                  let pair = pairs.first(where: { $0.key.scalar == String(part) }) else { return nil }
            node = pair.value
        }
        return node
    }

    /// docs/configuration.md's default column says what the loader does when a key is absent.
    /// The truth is config/edgemotion.yaml, which spells out every default and loads to exactly
    /// `AgentConfiguration.default` (`Config files` suite): each documented default must be
    /// the value written there, and each documented key must exist in the loader's key lists.
    @Test func configurationMarkdownKeysAndDefaultsAreTheLoaders() throws {
        let rows = try Self.markdownKeyRows()
        let yamlText = try String(contentsOf: Self.root.appendingPathComponent("config/edgemotion.yaml"), encoding: .utf8)
        let yaml = try YAMLParser.parse(yamlText, fileName: "config/edgemotion.yaml")
        #expect(try ConfigurationLoader.parse(yaml: yamlText, fileName: "config/edgemotion.yaml") == AgentConfiguration.default)
        let loaderKeys = Set(Self.loaderKeys().values.flatMap { $0 })
        var compared = 0
        for (key, cell) in rows {
            let last = String(key.split(separator: ".").last ?? "")
            #expect(loaderKeys.contains(last), "docs/configuration.md documents '\(key)', which the loader does not accept")
            guard let value = Self.node(yaml, key) else { continue }   // commented out in the reference file
            if cell.hasPrefix("null") {
                #expect(value.isNull || value.scalar == "", "\(key): documented default null, config/edgemotion.yaml has \(value.summary)")
                compared += 1
                continue
            }
            guard cell.hasPrefix("`"), let documented = cell.split(separator: "`").first.map({ $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }),
                  let written = value.scalar else { continue }
            compared += 1
            if let a = Double(documented), let b = Double(written) {
                #expect(a == b, "\(key): docs/configuration.md says \(documented), config/edgemotion.yaml (the loader's default) \(written)")
            } else {
                #expect(documented == written, "\(key): docs/configuration.md says \(documented), config/edgemotion.yaml (the loader's default) \(written)")
            }
        }
        #expect(compared >= 60, "only \(compared) defaults compared: the table scan is broken")
    }

    /// The unknown-key example in docs/configuration.md is the loader's real message.
    @Test func theUnknownKeyExampleIsTheRealMessage() throws {
        let markdown = try String(contentsOf: Self.root.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        let real = ConfigTestSupport.problems("device:\n  id: a\ncolour: red\n", file: "config/x.yaml")
        let line = try #require(real.first)
        #expect(markdown.contains(line + "\n"), "docs/configuration.md should show: \(line)")
    }

    /// The README is for someone with only the clone: the two commands, the board steps, links
    /// by task to pages that exist, nothing that only the project's machines have.
    @Test func theReadmeLinksTheNewcomersPagesAndOnlyWhatTheCloneHas() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        for command in ["./scripts/demo", "./scripts/test"] { #expect(readme.contains(command)) }
        for page in ["getting-started-raspberry-pi.md", "calibration.md", "recording.md", "troubleshooting.md",
                     "home-assistant.md", "configuration.md", "topics.md", "hardware.md"] {
            #expect(readme.contains("(docs/\(page))"), "README does not link docs/\(page)")
        }
        let link = try NSRegularExpression(pattern: #"\]\(([^)#]+)"#)
        for m in link.matches(in: readme, range: NSRange(readme.startIndex..., in: readme)) {
            let target = String(readme[Range(m.range(at: 1), in: readme)!])
            #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(target).path), "README links \(target), which does not exist")
        }
        #expect(!readme.contains("../shared/data"), "a clone has no ../shared/data")
        #expect(readme.contains("## On a board, in five steps"))
    }

    /// Every sub-command's `--help` has its usage line, at least one real example of itself and
    /// its exit status.
    @Test func everyCommandsHelpHasAnExampleAndItsExitStatus() {
        for c in CommandLineTool.commands {
            let lines = c.usage.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let start = lines.firstIndex { $0 == "example:" || $0 == "examples:" }
            #expect(start != nil, "\(c.name) --help has no example")
            if let start {
                let examples = lines.dropFirst(start + 1).prefix { !$0.isEmpty }
                #expect(examples.contains { $0.hasPrefix("edgemotion \(c.name)") || $0.hasPrefix("sudo edgemotion \(c.name)") },
                        "\(c.name) --help: no example runs \(c.name): \(Array(examples))")
            }
            #expect(c.usage.lowercased().contains("exit status:"), "\(c.name) --help does not say its exit status")
        }
    }

    /// One name per concept across the sub-commands' help: what a command writes is `--output`,
    /// a time span is `--duration`, the agent's state is `--config` or `--state-dir`. The older
    /// names (`--file`, `--seconds`) are still accepted but no help advertises them in its usage.
    @Test func everyCommandUsesTheSameOptionNames() {
        let retired = ["--file", "--seconds", "--out", "--dir-state", "--statedir", "--time"]
        for c in CommandLineTool.commands {
            let usageLines = c.usage.split(separator: "\n", omittingEmptySubsequences: false)
                .prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            let tokens = usageLines.joined(separator: " ")
                .split(whereSeparator: { " []|".contains($0) }).map(String.init)
            for name in retired {
                #expect(!tokens.contains(name), "\(c.name) --help's usage uses \(name); use the common name")
            }
        }
    }
}
