import Testing
import Foundation

/// The files under hardware/ and config/ that users install: overlays compile, example configs load.
@Suite("hardware/ overlays and config/ examples (host)")
struct DriverHardwareFilesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func files(in dir: String, prefix: String = "", suffix: String) -> [String] {
        let path = root.appendingPathComponent(dir).path
        return ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) }.sorted().map { path + "/" + $0 }
    }

    /// Runs `argv` with stdout/stderr into a file; returns the exit status and output.
    static func run(_ argv: [String]) -> (status: Int32, output: String) {
        let out = NSTemporaryDirectory() + "edgemotion-hwfiles-\(getpid())-\(UUID().uuidString).txt"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let cargs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { cargs.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawnp(&pid, argv[0], &actions, nil, cargs, environ) == 0 else { return (-1, "cannot run \(argv[0])") }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: out)
        return ((status >> 8) & 0xff, text)
    }

    static var dtcAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/dtc") }

    @Test(.enabled(if: dtcAvailable, "dtc not installed (apt-get install device-tree-compiler)"))
    func everyOverlayCompilesWithDtc() throws {
        let overlays = Self.files(in: "hardware/overlays", suffix: ".dts")
        #expect(overlays.count >= 4)
        for dts in overlays {
            let dtbo = NSTemporaryDirectory() + "edgemotion-\(getpid())-" + URL(fileURLWithPath: dts).deletingPathExtension().lastPathComponent + ".dtbo"
            let r = Self.run(["dtc", "-@", "-q", "-I", "dts", "-O", "dtb", "-o", dtbo, dts])
            #expect(r.status == 0, "\(dts): \(r.output)")
            let size = (try? FileManager.default.attributesOfItem(atPath: dtbo)[.size] as? Int) ?? 0
            #expect(size > 200, "\(dts) produced \(size) bytes")
            // The overlay must describe an interrupt for the data-ready pin.
            let text = try String(contentsOfFile: dts, encoding: .utf8)
            #expect(text.contains("interrupts = <4 1>"), "\(dts) has no rising-edge interrupt")
            try? FileManager.default.removeItem(atPath: dtbo)
        }
    }

    static var agentBinary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("edgemotion").path
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: agentBinary), "build the edgemotion product first (swift build --build-tests)"))
    func everyHardwareConfigExamplePassesCheckConfig() {
        let configs = Self.files(in: "config", prefix: "iio-", suffix: ".yaml") + Self.files(in: "config", prefix: "i2c-", suffix: ".yaml")
        #expect(configs.count >= 8)
        for file in configs {
            let r = Self.run([Self.agentBinary, "check-config", file])
            #expect(r.status == 0, "\(file): \(r.output)")
        }
    }
}
