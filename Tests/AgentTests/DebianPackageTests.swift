import Foundation
import Testing
import TestSupport
@testable import Agent

/// `deploy/build-deb`: builds the package, inspects it, installs it on this machine (root only),
/// checks the binary, user, unit and state, then removes and purges it.
@Suite("Debian package", .serialized, .ownThread)
struct DebianPackageTests {
    static let root = ConfigTestSupport.packageRoot.path

    @discardableResult
    static func sh(_ command: String) -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        do { try p.run() } catch { return (127, "\(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// The release binary when one was built (`swift build -c release --static-swift-stdlib`),
    /// else the debug binary the tests run (then the Swift runtime is not static: fine on this
    /// machine, not for shipping).
    /// The binary built with this test run (a release binary lying around may be stale).
    static var binary: String { AgentProcess.executable }

    @Test(.enabled(if: DebianPackageTests.sh("command -v dpkg-deb").status == 0, "dpkg-deb not found (apt-get install dpkg)"),
          .enabled(if: getuid() == 0, "installing, removing and purging the package needs root"))
    func buildInspectInstallRunVerifyRemoveAndPurge() throws {
        let out = NSTemporaryDirectory() + "edgemotion-deb-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let build = Self.sh("'\(Self.root)/deploy/build-deb' --output '\(out)' --binary '\(Self.binary)'")
        #expect(build.status == 0, "\(build.output)")
        let deb = try #require(build.output.split(separator: "\n").last.map(String.init), "\(build.output)")
        let arch = Self.sh("dpkg --print-architecture").output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(deb.hasSuffix("/edgemotion_\(CommandLineTool.version)_\(arch).deb"), "\(deb)")
        let size = (try FileManager.default.attributesOfItem(atPath: deb)[.size] as? Int) ?? 0
        print("package \(deb): \(size) bytes (binary \(Self.binary))")

        let info = Self.sh("dpkg-deb --info '\(deb)'").output
        #expect(info.contains("Package: edgemotion") && info.contains("Version: \(CommandLineTool.version)"), "\(info)")
        #expect(info.contains("libmosquitto1") && info.contains("adduser"), "Depends: \(info)")
        #expect(info.contains("postinst") && info.contains("postrm") && info.contains("conffiles"), "\(info)")
        let contents = Self.sh("dpkg-deb --contents '\(deb)'").output
        for path in ["./usr/bin/edgemotion", "./etc/edgemotion/edgemotion.yaml", "./lib/systemd/system/edgemotion.service",
                     "./usr/share/doc/edgemotion/copyright", "./usr/share/edgemotion/telegraf/edgemotion.conf"] {
            #expect(contents.contains(path), "\(path) missing:\n\(contents)")
        }
        if FileManager.default.fileExists(atPath: Self.root + "/hardware/udev/60-edgemotion.rules") {
            #expect(contents.contains("./lib/udev/rules.d/60-edgemotion.rules"))
        }
        #expect(contents.contains("root/root"), "files owned by root")

        // The shipped configuration loads and points at a local broker.
        let extracted = out + "/x"
        Self.sh("dpkg-deb -x '\(deb)' '\(extracted)'")
        let config = try ConfigurationLoader.load(path: extracted + "/etc/edgemotion/edgemotion.yaml")
        #expect(config.mqtt.broker == "mqtt://localhost:1883")
        #expect(config.stateDirectory == "/var/lib/edgemotion")

        // Install on this machine only when it has no trace of edgemotion (other agents' tests may
        // be using /var/lib/edgemotion); otherwise into a scratch root with DPKG_ROOT-aware scripts.
        let clean = !FileManager.default.fileExists(atPath: "/var/lib/edgemotion") && !FileManager.default.fileExists(atPath: "/etc/edgemotion")
            && Self.sh("id edgemotion").status != 0 && !Self.sh("dpkg-query -W -f='${Status}' edgemotion 2>/dev/null").output.contains("installed")
        let root = clean ? "" : out + "/root"
        var dpkg = "dpkg"
        if !clean {
            print("this machine already has /var/lib/edgemotion, /etc/edgemotion or an edgemotion user: installing into the scratch root \(root)")
            for dir in ["var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers"] {
                try FileManager.default.createDirectory(atPath: root + "/" + dir, withIntermediateDirectories: true)
            }
            FileManager.default.createFile(atPath: root + "/var/lib/dpkg/status", contents: nil)
            dpkg = "dpkg --root='\(root)' --force-script-chrootless --force-depends --log=/dev/null"
        }
        defer { Self.sh("\(dpkg) --purge edgemotion") }
        let install = Self.sh("\(dpkg) -i '\(deb)'")
        #expect(install.status == 0, "\(install.output)")
        #expect(Self.sh("'\(root)/usr/bin/edgemotion' --version").output == "edgemotion \(CommandLineTool.version)\n")
        #expect(Self.sh("'\(root)/usr/bin/edgemotion' check-config '\(root)/etc/edgemotion/edgemotion.yaml'").status == 0)
        #expect(FileManager.default.fileExists(atPath: root + "/var/lib/edgemotion"))
        if clean {
            let user = Self.sh("id edgemotion").output
            #expect(user.contains("(edgemotion)") && user.contains("i2c") && user.contains("gpio") && user.contains("iio"), "\(user)")
            #expect(Self.sh("stat -c %U /var/lib/edgemotion").output == "edgemotion\n")
        }
        if Self.sh("command -v systemd-analyze").status == 0 {
            // In a scratch root the unit is verified with ExecStart pointing at the scratch binary.
            var unit = "/lib/systemd/system/edgemotion.service"
            if !clean {
                let text = try String(contentsOfFile: root + unit, encoding: .utf8).replacingOccurrences(of: "/usr/bin/edgemotion", with: root + "/usr/bin/edgemotion")
                unit = out + "/edgemotion.service"
                try text.write(toFile: unit, atomically: true, encoding: .utf8)
            }
            let verify = Self.sh("systemd-analyze verify --man=no '\(unit)'")
            print("systemd-analyze verify: status \(verify.status) \(verify.output)")
            #expect(verify.status == 0, "systemd-analyze verify:\n\(verify.output)")
        }
        // remove: binary gone, configuration and state kept.
        Self.sh("echo calibration > '\(root)/var/lib/edgemotion/test-state'")
        let remove = Self.sh("\(dpkg) -r edgemotion")
        #expect(remove.status == 0, "\(remove.output)")
        #expect(!FileManager.default.fileExists(atPath: root + "/usr/bin/edgemotion"))
        #expect(FileManager.default.fileExists(atPath: root + "/var/lib/edgemotion/test-state"))
        #expect(FileManager.default.fileExists(atPath: root + "/etc/edgemotion/edgemotion.yaml"))
        // purge: state, configuration (and the user) gone.
        let purge = Self.sh("\(dpkg) --purge edgemotion")
        #expect(purge.status == 0, "\(purge.output)")
        #expect(!FileManager.default.fileExists(atPath: root + "/var/lib/edgemotion"))
        #expect(!FileManager.default.fileExists(atPath: root + "/etc/edgemotion"))
        if clean { #expect(Self.sh("id edgemotion").status != 0) }
    }
}
