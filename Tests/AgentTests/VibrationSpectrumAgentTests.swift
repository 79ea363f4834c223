import Foundation
import Testing
@testable import Agent
import TestSupport

/// `events.vibration.spectrum` on the running agent, through a real mosquitto: off by default,
/// and when on, one retained `vibration/spectrum` per `interval_s` whose numbers are the
/// recording's. Truth: a replayed board lying flat at 200 Hz with a 25 Hz, 2 m/s² sine on x
/// (FFT line 32 of 256: the sine's RMS, 2/√2 = 1.414 m/s², in the bin holding 25 Hz).
@Suite("Vibration spectrum on the agent", .serialized, .ownThread)
struct VibrationSpectrumAgentTests {
    func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    func recording(_ dir: String) throws -> String {
        var csv = "t_s,gx,gy,gz,ax,ay,az\n"
        for k in 0..<1400 {
            let t = Double(k) / 200
            csv += "\(t),0,0,0,\(2 * sin(2 * Double.pi * 25 * t)),0,9.80665\n"
        }
        let path = dir + "/tone.csv"
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func run(_ dir: String, spectrum: String, id: String, broker: MosquittoBroker) throws -> (TestSubscriber, AgentProcess) {
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/\(id)/#"])
        let config = try AgentProcess.writeConfig("""
        device: { id: \(id) }
        mqtt: { topic_prefix: edgemotion/\(id) }
        source: { type: replay, rate: 200, replay: { file: \(try recording(dir)) } }
        streams: { accelerometer: { enabled: false }, gyroscope: { enabled: false }, magnetometer: { enabled: false } }
        activity: { enabled: false }
        events: { enabled: true, vibration: { \(spectrum) } }
        state_directory: \(dir)
        """)
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        #expect(agent.waitForExit(timeout: 30) != nil, "the 7 s recording ends the run")
        return (sub, agent)
    }

    @Test func theSpectrumIsPublishedEveryIntervalWithTheTonesRMS() throws {
        let broker = try MosquittoBroker.start()
        let dir = try Reliability.tempDirectory("spectrum-on")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (sub, agent) = try run(dir, spectrum: "spectrum: { enabled: true, interval_s: 2, length: 256, bins: 16 }", id: "sp", broker: broker)
        let messages = sub.waitFor(count: 3, topic: "edgemotion/sp/vibration/spectrum", timeout: .seconds(5))
        // 7 s of samples: due at 1.275 s (256 samples in), 3.275 s, 5.275 s.
        #expect(messages.count == 3, "\(messages.map(\.payloadString))\n\(agent.log)")
        var times: [Double] = []
        for m in messages {
            let s = json(m.payloadString)
            let edges = (s["edges_hz"] as? [Double]) ?? [], rms = (s["rms_ms2"] as? [Double]) ?? []
            #expect(edges.count == rms.count + 1 && !rms.isEmpty, "\(m.payloadString)")
            #expect(abs(((s["peak_hz"] as? Double) ?? 0) - 25) < 0.01, "\(m.payloadString)")
            #expect(abs(((s["resolution_hz"] as? Double) ?? 0) - 0.78125) < 1e-3 && s["length"] as? Int == 256, "\(m.payloadString)")
            if let b = (0..<rms.count).first(where: { edges[$0] <= 25 && 25 < edges[$0 + 1] }) {
                #expect(abs(rms[b] - 1.4142) < 0.015, "bin [\(edges[b]), \(edges[b + 1])): \(rms[b])")
            } else {
                Issue.record("no bin holds 25 Hz: \(edges)")
            }
            times.append((s["timestamp_utc"] as? Double) ?? 0)
        }
        for i in 1..<times.count { #expect(abs(times[i] - times[i - 1] - 2) < 0.02, "rate-limited to interval_s: \(times)") }
        let late = try TestSubscriber(url: broker.url, patterns: ["edgemotion/sp/vibration/spectrum"])
        #expect(late.waitFor(count: 1, timeout: .seconds(5)) { $0.retain }.count == 1, "retained for a late subscriber")
    }

    @Test func offByDefault() throws {
        let broker = try MosquittoBroker.start()
        let dir = try Reliability.tempDirectory("spectrum-off")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (sub, agent) = try run(dir, spectrum: "high_pass_hz: 20", id: "sq", broker: broker)
        // The vibration state runs (the events feature is on) but no spectrum is published.
        #expect(!sub.waitFor(count: 1, topic: "edgemotion/sq/state/vibration", timeout: .seconds(5)).isEmpty, "\(agent.log)")
        #expect(sub.messages(on: "edgemotion/sq/vibration/spectrum").isEmpty)
    }
}
