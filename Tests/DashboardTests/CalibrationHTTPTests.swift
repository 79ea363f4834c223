import Foundation
import Testing
import TestSupport

/// `POST /api/calibration`, the calibration page's only write, on the real agent read with curl:
/// bad input gets a clear error and changes nothing; a post from another site, a form post, a
/// post without the dashboard's password, and a post to a dashboard open to the network
/// without a password are refused.
@Suite("Calibration page over HTTP", .serialized, .enabled(if: curlAvailable, "curl is not installed"), .ownThread)
struct CalibrationHTTPTests {
    /// `curl` POST of `body` to `/api/calibration` with `headers`: (status, body).
    static func post(_ url: String, _ body: String, headers: [String] = ["Content-Type: application/json"],
                     _ extra: [String] = []) throws -> (Int, String) {
        let out = try Web.run("/usr/bin/curl", ["-s", "--max-time", "10", "-w", "\n%{http_code}", "-X", "POST", "--data-binary", body]
                              + headers.flatMap { ["-H", $0] } + extra + [url + "api/calibration"]).1
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? -1, lines.dropLast().joined(separator: "\n"))
    }

    @Test func badPostsGetClearErrorsAndAValidOneIsCarriedOutByTheMainLoop() throws {
        let (broker, agent, url) = try Web.startAgent(id: "calhttp")
        defer { agent.signal(); agent.waitForExit(timeout: 10); broker.stop() }
        #expect(try Web.status(url + "calibrate") == 200)
        #expect(try Web.status(url + "calibrate.js") == 200)

        var (status, body) = try Self.post(url, #"{"action":"fly"}"#)
        #expect(status == 400 && body.contains("/api/calibration: 'action' must be one of gyro, accel, mag, save, cancel"), "\(status) \(body)")
        (status, body) = try Self.post(url, #"{"action":"gyro","duration_s":1e9}"#)
        #expect(status == 400 && body.contains("'duration_s' must be a number of seconds, 2 … 120"), "\(status) \(body)")
        (status, body) = try Self.post(url, "{\"action\":")
        #expect(status == 400 && body.contains("expected an object like"), "\(status) \(body)")
        (status, body) = try Self.post(url, #"{"action":"gyro","rm":"-rf"}"#)
        #expect(status == 400 && body.contains("unknown key 'rm'"), "\(status) \(body)")
        (status, body) = try Self.post(url, String(repeating: " ", count: 5000) + #"{"action":"gyro"}"#)
        #expect(status == 413 && body.contains("larger than 4096 bytes"), "\(status) \(body)")
        // A form post (what a page on another site can send without asking) and a foreign Origin.
        (status, body) = try Self.post(url, "action=gyro", headers: ["Content-Type: application/x-www-form-urlencoded"])
        #expect(status == 415 && body.contains("needs Content-Type: application/json"), "\(status) \(body)")
        (status, body) = try Self.post(url, #"{"action":"gyro"}"#, headers: ["Content-Type: application/json", "Origin: http://evil.example"])
        #expect(status == 403 && body.contains("from another site"), "\(status) \(body)")
        // Other paths take no POST.
        #expect(try Web.status(url + "api/config", ["-X", "POST", "-H", "Content-Type: application/json", "-d", "{}"]) == 405)
        // Nothing of that reached the flow: no step ran, no error shown.
        let idle = try #require(try Web.json(url + "api/calibration"))
        #expect(idle["active"] is NSNull)
        #expect(((idle["gyro"] as? [String: Any])?["state"] as? String) == "idle")

        // A valid post from the page's own origin: queued (202), carried out by the main loop.
        let origin = "Origin: " + url.dropLast()
        (status, body) = try Self.post(url, #"{"id":"t1","action":"cancel"}"#, headers: ["Content-Type: application/json", String(origin)])
        #expect(status == 202 && body.contains(#""id":"t1""#) && body.contains(#""state":"queued""#), "\(status) \(body)")
        var shown: String?
        for _ in 0..<30 where shown == nil {
            usleep(100_000)
            shown = ((try Web.json(url + "api/calibration"))?["gyro"] as? [String: Any])?["error"] as? String
        }
        #expect(shown == "no step is collecting")
        #expect(agent.isRunning)
    }

    @Test func withAPasswordAPostNeedsIt() throws {
        let password = NSTemporaryDirectory() + "em-http-password-\(UUID().uuidString)"
        try "s3cret\n".write(toFile: password, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: password) }
        let (broker, agent, url) = try Web.startAgent(id: "calauth", http: "username: viewer, password_file: \(password)",
                                                      listen: "0.0.0.0:0")
        defer { agent.signal(); agent.waitForExit(timeout: 10); broker.stop() }
        #expect(try Self.post(url, #"{"action":"cancel"}"#).0 == 401)
        #expect(try Self.post(url, #"{"action":"cancel"}"#, ["-u", "viewer:wrong"]).0 == 401)
        #expect(try Web.status(url + "calibrate") == 401)
        // Beyond loopback with a password: writes are allowed.
        #expect(try Self.post(url, #"{"action":"cancel"}"#, ["-u", "viewer:s3cret"]).0 == 202)
    }

    @Test func beyondLoopbackWithoutAPasswordNothingCanBeWritten() throws {
        let (broker, agent, url) = try Web.startAgent(id: "calopen", listen: "0.0.0.0:0")
        defer { agent.signal(); agent.waitForExit(timeout: 10); broker.stop() }
        let (status, body) = try Self.post(url, #"{"action":"gyro"}"#)
        #expect(status == 403 && body.contains("needs http.username and http.password_file"), "\(status) \(body)")
        // The page itself is still served (read-only).
        #expect(try Web.status(url + "calibrate") == 200)
    }
}
