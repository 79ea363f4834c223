import Foundation
import Testing
import TestSupport

/// `http.username` + `http.password_file` (basic auth) and `http.cert_file` + `http.key_file`
/// (HTTPS) on the real agent, checked with curl.
@Suite("Dashboard basic auth and TLS", .serialized, .enabled(if: curlAvailable, "curl is not installed"), .ownThread)
struct DashboardSecurityTests {
    @Test func withAPasswordEveryPathNeedsItAndWrongOnesAreRefusedAndCounted() throws {
        let password = NSTemporaryDirectory() + "em-http-password-\(UUID().uuidString)"
        try "s3cret-Δ\n".write(toFile: password, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: password) }
        let (broker, agent, url) = try Web.startAgent(id: "auth", http: "username: viewer, password_file: \(password)")
        defer { agent.signal(); agent.waitForExit(timeout: 10); broker.stop() }
        for path in ["", "metrics", "events", "api/config", "healthz"] {
            #expect(try Web.status(url + path) == 401, "/\(path) without a password")
        }
        #expect(try Web.status(url + "metrics", ["-u", "viewer:wrong"]) == 401)
        #expect(try Web.status(url + "metrics", ["-u", "intruder:s3cret-Δ"]) == 401)
        let headers = try Web.run("/usr/bin/curl", ["-s", "-D", "-", "-o", "/dev/null", "--max-time", "10", url]).1
        #expect(headers.lowercased().contains("www-authenticate: basic realm=\"edgemotion\""), "\(headers)")
        #expect(try Web.status(url, ["-u", "viewer:s3cret-Δ"]) == 200)
        let metrics = try Web.get(url + "metrics", ["-u", "viewer:s3cret-Δ"])
        let rejected = metrics.split(separator: "\n").first { $0.hasPrefix("edgemotion_http_requests_rejected_total ") }
        #expect((rejected.flatMap { Double($0.split(separator: " ")[1]) } ?? 0) >= 8, "\(String(describing: rejected))")
        // The password never appears in the effective configuration.
        let config = try Web.get(url + "api/config", ["-u", "viewer:s3cret-Δ"])
        #expect(!config.isEmpty && !config.contains("s3cret"), "\(config.prefix(400))")
    }

    @Test func withACertificateTheDashboardIsHTTPSOnlyAndVerifiesAgainstItsCA() throws {
        let certs = try TestCertificates.generate()
        let (broker, agent, url) = try Web.startAgent(id: "tls", http: "cert_file: \(certs.serverCertFile), key_file: \(certs.serverKeyFile)")
        defer { agent.signal(); agent.waitForExit(timeout: 10); broker.stop() }
        #expect(url.hasPrefix("https://127.0.0.1:"), "announced \(url)")
        #expect(try Web.status(url + "metrics", ["--cacert", certs.caFile]) == 200)
        let metrics = try Web.get(url + "metrics", ["--cacert", certs.caFile])
        #expect(metrics.contains("edgemotion_samples_processed_total "))
        // Without the CA the certificate does not verify (curl exit 60); plain HTTP gets no page.
        let (unverified, _) = try Web.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "--max-time", "10", url + "metrics"])
        #expect(unverified == 60, "curl exit \(unverified) without --cacert")
        let plain = "http://" + url.dropFirst("https://".count)
        #expect(try Web.status(plain + "metrics") != 200)
        #expect(agent.isRunning)
    }
}
