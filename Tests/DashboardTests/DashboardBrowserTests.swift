import Foundation
import Testing
import Messaging
import TestSupport

/// The live page in real headless Chromium (DevTools protocol over a pipe), next to a real MQTT
/// subscriber on the agent's own broker: what the page shows is what the agent publishes.
///
/// Writes its screenshot to `.build/dashboard.png`, never into the source tree, so a test run leaves
/// the checkout clean. `scripts/dashboard-screenshot` sets `EDGEMOTION_DASHBOARD_SCREENSHOT` to
/// `docs/images/dashboard.png` (the screenshot docs/dashboard.md shows) to regenerate that.
@Suite("Dashboard in headless Chromium", .serialized, .ownThread,
       .enabled(if: chromiumExecutable != nil && curlAvailable, "needs Debian's chromium (scripts/test installs it) and curl"))
struct DashboardBrowserTests {
    static let screenshotPath = ProcessInfo.processInfo.environment["EDGEMOTION_DASHBOARD_SCREENSHOT"]
        .map { URL(fileURLWithPath: $0, relativeTo: Web.packageRoot) }
        ?? Web.packageRoot.appendingPathComponent(".build/dashboard.png")

    /// The motion stream at the source rate (200 Hz): every fused state the page can show is published.
    static let agentYAML = "streams: { motion: { rate: 200, publish_rate: 10 } }"

    /// Motion states from `motion` batches: monotonic time (s) → (roll, pitch, yaw) in degrees.
    static func states(_ messages: [MQTTMessage]) -> [(t: Double, roll: Double, pitch: Double, yaw: Double)] {
        messages.flatMap { m -> [(t: Double, roll: Double, pitch: Double, yaw: Double)] in
            guard let j = try? JSONSerialization.jsonObject(with: Data(m.payload)) as? [String: Any],
                  let t0 = (j["t0_mono_ns"] as? NSNumber)?.doubleValue, let samples = j["samples"] as? [[String: Any]] else { return [] }
            return samples.compactMap { s in
                guard let dt = (s["dt_us"] as? NSNumber)?.doubleValue, let r = s["roll"] as? Double, let p = s["pitch"] as? Double,
                      let y = s["yaw"] as? Double else { return nil }
                return (t0 * 1e-9 + dt * 1e-6, r * 180 / .pi, p * 180 / .pi, y * 180 / .pi)
            }
        }
    }

    /// |a − b| in degrees on the circle.
    static func angleDifference(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: 360)
        return min(d, 360 - d)
    }

    @Test func thePageLoadsWithoutErrorsShowsWhatMQTTCarriesAndItsGraphsAdvance() throws {
        let (broker, agent, url) = try Web.startAgent(id: "browser", extraYAML: Self.agentYAML)
        defer { agent.signal(); agent.waitForExit(timeout: 10); broker.stop() }
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/browser/motion", "edgemotion/browser/activity"])
        let chromium = try HeadlessChromium()
        defer { chromium.quit() }
        _ = try chromium.call("Page.navigate", ["url": url])

        let live = try chromium.waitUntil("!!(window.emLast && window.emLast.motion && document.getElementById('roll').textContent !== '–')", timeout: 20)
        try #require(live, "no live data on the page; errors: \(chromium.errors)\nchromium log:\n\(chromium.log.suffix(2000))")

        // Attitude: the numbers on the page and the time of the state they show, read at once,
        // against the state with that timestamp on MQTT (200 Hz motion stream: the same sample).
        var compared = 0
        for _ in 0..<5 {
            let shown = try #require(try chromium.evaluate("""
                JSON.stringify({t: window.emLast.motion.t_mono_s, roll: document.getElementById('roll').textContent,
                  pitch: document.getElementById('pitch').textContent, yaw: document.getElementById('yaw').textContent})
                """) as? String)
            let page = try #require(try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any])
            let t = try #require(page["t"] as? Double)
            let degrees = ["roll", "pitch", "yaw"].map { Double(page[$0] as? String ?? "") ?? .nan }
            // The batch holding that sample is published within 0.1 s (publish_rate 10).
            _ = sub.waitFor(count: 1, timeout: .seconds(5)) { m in
                m.topic.hasSuffix("/motion") && Self.states([m]).contains { $0.t >= t - 0.0005 }
            }
            let states = Self.states(sub.messages(on: "edgemotion/browser/motion"))
            let match = try #require(states.min { abs($0.t - t) < abs($1.t - t) }, "no motion on MQTT")
            #expect(abs(match.t - t) < 0.0015, "the page's state t=\(t) s has no MQTT twin (nearest \(match.t))")
            // The page shows one decimal (±0.05°); MQTT carries radians to 1e-3 or better.
            for (name, shownValue, published) in zip3(["roll", "pitch", "yaw"], degrees, [match.roll, match.pitch, match.yaw]) {
                #expect(Self.angleDifference(shownValue, published) < 0.15, "\(name): page \(shownValue)°, MQTT \(published)° at t=\(t)")
            }
            compared += 1
            usleep(700_000)
        }
        #expect(compared == 5)

        // Activity: the page's current activity is the agent's retained `activity` at that moment.
        let activityAgrees = try chromium.waitUntilValue(timeout: 30) { () -> Bool in
            guard let shown = try chromium.evaluate("document.getElementById('activity').textContent") as? String,
                  let last = sub.messages(on: "edgemotion/browser/activity").last,
                  let j = try JSONSerialization.jsonObject(with: Data(last.payload)) as? [String: Any] else { return false }
            return shown == j["activity"] as? String && shown == "walking"
        }
        let shownActivity = try chromium.evaluate("document.getElementById('activity').textContent") as? String ?? "?"
        #expect(activityAgrees, "page activity vs MQTT activity: \(shownActivity) vs \(sub.messages(on: "edgemotion/browser/activity").last?.payloadString ?? "none")")

        // Graphs advance: more samples pushed and different pixels 2 s later (10 Hz: 20 samples).
        let graphState = "JSON.stringify(['g-accel','g-gyro','g-mag','g-user'].map(id => { const c = document.getElementById(id); return [Number(c.dataset.samples || 0), c.toDataURL().length + ':' + c.toDataURL().slice(-64)]; }))"
        let before = try #require(try chromium.evaluate(graphState) as? String)
        usleep(2_000_000)
        let after = try #require(try chromium.evaluate(graphState) as? String)
        let b = try #require(try JSONSerialization.jsonObject(with: Data(before.utf8)) as? [[Any]])
        let a = try #require(try JSONSerialization.jsonObject(with: Data(after.utf8)) as? [[Any]])
        for (i, name) in ["accelerometer", "gyroscope", "magnetometer", "user acceleration"].enumerated() {
            let n0 = b[i][0] as? Int ?? 0, n1 = a[i][0] as? Int ?? 0
            #expect(n1 - n0 >= 10, "\(name) graph: \(n0) → \(n1) samples in 2 s at 10 Hz")
            #expect(b[i][1] as? String != a[i][1] as? String, "\(name) graph did not redraw")
        }

        // The screenshot docs/dashboard.md shows, after ≥ 12 s of data so the graphs are full.
        usleep(6_000_000)
        let png = try chromium.screenshot()
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 20_000, "a real PNG: \(png.count) bytes")
        try png.write(to: Self.screenshotPath)
        #expect(chromium.errors.isEmpty, "the page reported errors: \(chromium.errors)")
    }
}

private func zip3<A, B, C>(_ a: [A], _ b: [B], _ c: [C]) -> [(A, B, C)] {
    (0..<min(a.count, b.count, c.count)).map { (a[$0], b[$0], c[$0]) }
}

extension HeadlessChromium {
    /// Polls `condition` every 300 ms until it holds or `timeout` s pass.
    func waitUntilValue(timeout: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if try condition() { return true }
            usleep(300_000)
        } while Date() < deadline
        return false
    }
}
