import Foundation
import Testing

/// The module graph holds: every shipped target imports only what Package.swift declares for it
/// (no module reached through another's re-export or a transitive dependency), and no layer
/// imports one above it (docs/ARCHITECTURE.md: Platform → MotionCore, Logging → Sensors, Messaging →
/// EdgeMotion → Agent → edgemotion).
@Suite("Module layering")
struct LayeringTests {
    static let root = ConfigTestSupport.packageRoot

    /// A non-test target of Package.swift: its name, folder and declared dependencies.
    struct Target { var name: String; var path: String; var dependencies: Set<String> }

    /// Read from Package.swift's text, so a target added later is checked without editing this test.
    static func targets() throws -> [Target] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let pattern = try NSRegularExpression(
            pattern: #"\.(target|executableTarget)\(\s*name:\s*"([^"]+)"(?:,\s*dependencies:\s*\[([^\]]*)\])?(?:,\s*path:\s*"([^"]+)")?"#)
        return pattern.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)).map { m in
            func group(_ i: Int) -> String? { Range(m.range(at: i), in: manifest).map { String(manifest[$0]) } }
            let name = group(2)!
            let deps = (group(3) ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: " \n\"")) }.filter { !$0.isEmpty }
            return Target(name: name, path: group(4) ?? "Sources/\(name)", dependencies: Set(deps))
        }
    }

    /// Modules every target may import: the toolchain's.
    static let toolchain: Set<String> = ["Glibc", "Musl", "Darwin", "Dispatch", "Synchronization", "Foundation",
                                          "FoundationEssentials"]

    /// Layer of each module of the architecture; an import must go to a strictly lower layer.
    static let layer: [String: Int] = ["Platform": 0, "MotionCore": 1, "Logging": 1, "Sensors": 2, "Messaging": 2,
                                       "EdgeMotion": 3, "Agent": 4, "edgemotion": 5]

    /// `(file, module)` for every import in the Swift files under `path`.
    static func imports(under path: String) -> [(String, String)] {
        let base = root.appendingPathComponent(path)
        let files = (FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? [])
            .filter { $0.hasSuffix(".swift") }
        let pattern = try! NSRegularExpression(pattern: #"^\s*(?:(?:@_exported|@testable|@preconcurrency|internal|public|package|private|fileprivate)\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)"#,
                                               options: .anchorsMatchLines)
        return files.flatMap { file -> [(String, String)] in
            guard let text = try? String(contentsOf: base.appendingPathComponent(file), encoding: .utf8) else { return [] }
            return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
                ("\(path)/\(file)", String(text[Range($0.range(at: 1), in: text)!]))
            }
        }
    }

    @Test func theManifestScanFindsTheLayers() throws {
        let names = Set(try Self.targets().map(\.name))
        // A broken scan must fail rather than check nothing.
        #expect(names.isSuperset(of: ["Platform", "MotionCore", "Sensors", "Messaging", "EdgeMotion", "Agent", "edgemotion"]), "\(names.sorted())")
        let agent = try #require(try Self.targets().first { $0.name == "Agent" })
        #expect(agent.dependencies.contains("EdgeMotion"))
    }

    @Test func everyImportOfAShippedTargetIsADeclaredDependency() throws {
        var offenders: [String] = []
        for target in try Self.targets() {
            for (file, module) in Self.imports(under: target.path)
            where !Self.toolchain.contains(module) && !target.dependencies.contains(module)
                && !(module == "Testing" && target.path.hasPrefix("Tests/")) {  // test support may use the test library
                offenders.append("\(file) imports \(module), which \(target.name) does not declare in Package.swift")
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }

    @Test func noLayerImportsALayerAboveIt() throws {
        var offenders: [String] = []
        for target in try Self.targets() {
            guard let own = Self.layer[target.name] else { continue }
            for (file, module) in Self.imports(under: target.path) {
                if let other = Self.layer[module], other >= own {
                    offenders.append("\(file) (\(target.name), layer \(own)) imports \(module) (layer \(other))")
                }
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }

    @Test func platformImportsOnlyTheCLibraryAndZlib() throws {
        let allowed: Set<String> = ["Glibc", "Musl", "Synchronization", "CZlib"]
        let offenders = Self.imports(under: "Sources/Platform").filter { !allowed.contains($0.1) }.map { "\($0.0) imports \($0.1)" }
        #expect(!Self.imports(under: "Sources/Platform").isEmpty, "the scan found no Platform sources")
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }

    /// A re-export hides a real dependency from Package.swift and widens the library's surface;
    /// the one allowed is CoreMotion's Foundation, which iOS code expects with `import CoreMotion`.
    @Test func noShippedModuleReExportsAnother() throws {
        var offenders: [String] = []
        for target in try Self.targets() where target.path.hasPrefix("Sources/") || target.path.hasPrefix("Examples/") {
            let base = Self.root.appendingPathComponent(target.path)
            let files = (FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []).filter { $0.hasSuffix(".swift") }
            for file in files {
                let text = (try? String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)) ?? ""
                for line in text.split(separator: "\n") where line.trimmingCharacters(in: .whitespaces).hasPrefix("@_exported") {
                    if target.name == "CoreMotion" && line.contains("import Foundation") { continue }
                    offenders.append("\(target.path)/\(file): \(line)")
                }
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }

    /// Shipped and benchmark code never links test fixtures (targets whose folder is under Tests/).
    @Test func noTargetUnderSourcesDependsOnATestTarget() throws {
        let targets = try Self.targets()
        let testFolders = Set(targets.filter { $0.path.hasPrefix("Tests/") }.map(\.name))
        var offenders: [String] = []
        for target in targets where target.path.hasPrefix("Sources/") || target.path.hasPrefix("Examples/") {
            for dependency in target.dependencies.intersection(testFolders).sorted() {
                offenders.append("\(target.name) (\(target.path)) depends on the test target \(dependency)")
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }
}
