import Foundation
import Testing
import MotionCore
import TestSupport

/// The calibration page (`/calibrate`) in real headless Chromium against the agent on the
/// simulator (lying still, then turned by hand: `stationary:15,rotation`; `gyro_bias_dps: 0.5`,
/// which the simulator applies as (0.5, −0.3, 0.2) °/s), driven by clicking its buttons: the gyro step runs to its end and
/// the bias it shows, writes and the agent applies is the simulator's; the six-face picture
/// follows the live stream (+z up, covered once held); the magnetometer map fills as the board
/// turns; no console error.
@Suite("Calibration page in headless Chromium", .serialized, .ownThread,
       .enabled(if: chromiumExecutable != nil && curlAvailable, "needs Debian's chromium (scripts/test installs it) and curl"))
struct CalibrationBrowserTests {
    static let simulator = "scenario: \"stationary:15,rotation\", real_time: true, magnetometer: true, gyro_bias_dps: 0.5"

    func value(_ chromium: HeadlessChromium, _ expression: String) throws -> Any? { try chromium.evaluate(expression) }
    /// What `expression` gives, for a failure message (never throws).
    func peek(_ chromium: HeadlessChromium, _ expression: String) -> String { ((try? chromium.evaluate(expression)) ?? nil).map { "\($0)" } ?? "?" }
    func int(_ chromium: HeadlessChromium, _ expression: String) throws -> Int? { (try chromium.evaluate(expression) as? NSNumber)?.intValue }

    @Test func theGyroFlowRunsToTheEndWritesTheFileTheAgentAppliesAndTheCoveragePicturesFollowTheLiveStream() throws {
        let (broker, agent, url) = try Web.startAgent(id: "calpage", simulator: Self.simulator)
        defer { agent.signal(); agent.waitForExit(timeout: 10); broker.stop() }
        let meta = try TestSubscriber(url: broker.url, patterns: ["edgemotion/calpage/meta"])
        let chromium = try HeadlessChromium()
        defer { chromium.quit() }
        _ = try chromium.call("Page.navigate", ["url": url + "calibrate"])
        let ready = try chromium.waitUntil("!!(window.emCal && window.emCalLive > 2 && !document.getElementById('gyro-start').disabled)", timeout: 20)
        try #require(ready, "the page did not load its state; errors: \(chromium.errors)\n\(chromium.log.suffix(2000))")
        #expect(try value(chromium, "document.getElementById('file-state').textContent") as? String == "none")

        // 1. Gyro: 3 s still, by the page's own button.
        _ = try chromium.evaluate("document.getElementById('gyro-duration').value = '3'; document.getElementById('gyro-start').click(); true")
        let running = try chromium.waitUntil("window.emCal.gyro.state === 'running' && document.getElementById('gyro-start').disabled", timeout: 5)
        #expect(running, "the gyro step did not start: \(peek(chromium, "JSON.stringify(window.emCal.gyro)"))")
        let done = try chromium.waitUntil("window.emCal.gyro.state === 'done' && window.emCal.file.applied.gyro_bias_dps !== null", timeout: 25)
        try #require(done, "the gyro step did not end: \(peek(chromium, "JSON.stringify(window.emCal)"))")
        let shownBias = try #require(try value(chromium, "document.getElementById('gyro-bias').textContent") as? String)
        let bias = shownBias.split(separator: " ").compactMap { Double($0) }
        let truth = [0.5, -0.3, 0.2]
        #expect(bias.count == 3 && zip(bias, truth).allSatisfy { abs($0 - $1) < 0.05 }, "page shows bias \(shownBias) °/s; the simulator's is \(truth)")

        // Written: the file the agent loads, for its device id, with that bias; and applied.
        let status = try #require(try Web.json(url + "api/calibration"))
        let file = try #require(status["file"] as? [String: Any])
        let path = try #require(file["path"] as? String)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let written = try CalibrationFile.decode(text, expectedSensor: "calpage", source: path)
        let writtenBias = try #require(written.gyroBias) * (180 / .pi)
        for (w, b) in zip([writtenBias.x, writtenBias.y, writtenBias.z], bias) { #expect(abs(w - b) < 0.00006, "file \(writtenBias) vs page \(bias)") }
        #expect(file["calibration"] as? String == "loaded")
        let applied = try #require((file["applied"] as? [String: Any])?["gyro_bias_dps"] as? [Double])
        for (a, b) in zip(applied, bias) { #expect(abs(a - b) < 0.00006, "applied \(applied) vs page \(bias)") }
        #expect(try value(chromium, "document.getElementById('file-state').textContent") as? String == "loaded")
        // The agent says so on MQTT too: its retained meta after the restart.
        let loaded = meta.waitFor(count: 1, timeout: .seconds(10)) { $0.payloadString.contains(#""calibration":"loaded""#) }
        #expect(!loaded.isEmpty, "meta: \(meta.messages(on: "edgemotion/calpage/meta").last?.payloadString ?? "none")")

        // 2. Accelerometer: the board lies flat, +z up — the picture says so from the live stream,
        //    and +z turns covered once held still long enough.
        _ = try chromium.evaluate("document.getElementById('accel-start').click(); true")
        let upNow = try chromium.waitUntil("document.getElementById('accel-picture').dataset.up === '+z'", timeout: 10)
        #expect(upNow, "up now: \(peek(chromium, "document.getElementById('accel-picture').dataset.up"))")
        let live0 = try #require(try int(chromium, "window.emCalLive"))
        let draws0 = try #require(try int(chromium, "Number(document.getElementById('accel-picture').dataset.draws)"))
        let covered = try chromium.waitUntil("document.getElementById('accel-picture').dataset.covered === '+z' && window.emCal.accel.state === 'running'", timeout: 15)
        #expect(covered, "covered: \(peek(chromium, "JSON.stringify(window.emCal.accel)"))")
        let live1 = try #require(try int(chromium, "window.emCalLive"))
        let draws1 = try #require(try int(chromium, "Number(document.getElementById('accel-picture').dataset.draws)"))
        #expect(live1 > live0 && draws1 > draws0, "live events \(live0) → \(live1), redraws \(draws0) → \(draws1)")
        #expect(try value(chromium, "document.getElementById('accel-missing').textContent") as? String == "+x, −x, +y, −y, −z")
        // Saving now is refused by the fit (five faces missing) and the step keeps collecting.
        _ = try chromium.evaluate("document.getElementById('accel-save').click(); true")
        let refused = try chromium.waitUntil("(window.emCal.accel.error || '').startsWith('not saved: no still period found with +x, −x, +y, −y, −z up')", timeout: 5)
        #expect(refused, "accel: \(peek(chromium, "JSON.stringify(window.emCal.accel)"))")
        _ = try chromium.evaluate("document.getElementById('accel-cancel').click(); true")
        #expect(try chromium.waitUntil("window.emCal.active === null && window.emCal.accel.state === 'idle'", timeout: 5))

        // 3. Magnetometer: readings flow in; once the board turns, the map fills.
        _ = try chromium.evaluate("document.getElementById('mag-start').click(); true")
        #expect(try chromium.waitUntil("window.emCal.mag.readings > 50", timeout: 10))
        let filling = try chromium.waitUntil("Number(document.getElementById('mag-picture').dataset.cells) >= 6 && window.emCal.mag.readings > 300", timeout: 45)
        #expect(filling, "mag: \(peek(chromium, "JSON.stringify(window.emCal.mag)"))")
        let cells = try #require(try int(chromium, "window.emCal.mag.cells.filter(Boolean).length"))
        #expect(try int(chromium, "Number(document.getElementById('mag-picture').dataset.cells)") == cells)
        _ = try chromium.evaluate("document.getElementById('mag-cancel').click(); true")
        #expect(try chromium.waitUntil("window.emCal.active === null", timeout: 5))

        #expect(chromium.errors.isEmpty, "the page reported errors: \(chromium.errors)")
        #expect(agent.isRunning)
    }
}
