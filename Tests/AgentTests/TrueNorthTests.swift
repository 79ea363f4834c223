import Foundation
import Testing
import Messaging
import TestSupport

/// Core Motion's rule for reference frames, end to end: a frame is served only when what it
/// needs exists — true north needs a heading (a magnetometer) and a declination (a location).
/// Otherwise the agent announces it once on `events/status` and every `motion` payload names the
/// frame it really is in; `heading` is −1 without a magnetometer.
@Suite("True north", .serialized, .ownThread)
struct TrueNorthTests {
    /// The agent's `motion` frames and headings and its `events/status` events over a short run.
    func run(_ yaml: String, id: String, arguments: [String] = []) throws -> (frames: Set<String>, headings: [Double], events: [String], log: String) {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/\(id)/#"])
        let config = try AgentProcess.writeConfig(yaml)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url, "--device-id", id] + arguments)
        _ = sub.waitFor(count: 8, topic: "edgemotion/\(id)/motion", timeout: .seconds(20))
        usleep(500_000)
        agent.signal(SIGTERM)
        _ = agent.waitForExit(timeout: 10)
        let motion = sub.messages(on: "edgemotion/\(id)/motion").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] }
        let frames = Set(motion.compactMap { $0["frame"] as? String })
        let headings = motion.flatMap { ($0["samples"] as? [[String: Any]] ?? []).compactMap { $0["heading"] as? Double } }
        let events = sub.messages(on: "edgemotion/\(id)/events/status").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any])?["event"] as? String }
        return (frames, headings, events, agent.log)
    }

    static let streams = """
        streams:
          accelerometer: { enabled: false }
          gyroscope: { enabled: false }
          magnetometer: { enabled: false }
          motion: { rate: 20, publish_rate: 5 }
        """

    @Test func trueNorthWithoutALocationRunsInMagneticNorthAndSaysSoOnce() throws {
        let dir = try Reliability.tempDirectory("truenorth")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try run("""
            source: { type: simulator, simulator: { scenario: stationary } }
            fusion: { reference_frame: xTrueNorthZVertical }
            state_directory: \(dir)
            \(Self.streams)
            """, id: "tn-nolocation")
        #expect(r.frames == ["xMagneticNorthZVertical"], "\(r.log)")
        #expect(r.events.filter { $0 == "trueNorthNotAvailable" }.count == 1, "\(r.events)\n\(r.log)")
        #expect(r.log.contains("true north not available"), "\(r.log)")
    }

    @Test func aReplayWithoutMagnetometerIsNotLabelledTrueNorth() throws {
        let dir = try Reliability.tempDirectory("truenorth-replay")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 4 s lying still, face up, at 100 Hz: gravity only, no magnetometer columns.
        var csv = "t_s,gx,gy,gz,ax,ay,az\n"
        for k in 0..<400 { csv += "\(Double(k) / 100),0,0,0,0,0,9.80665\n" }
        try csv.write(toFile: dir + "/still.csv", atomically: true, encoding: .utf8)
        let r = try run("""
            source: { type: replay, rate: 100, replay: { file: \(dir)/still.csv } }
            fusion: { reference_frame: xTrueNorthZVertical, latitude: 52.5, longitude: 13.4 }
            state_directory: \(dir)
            \(Self.streams)
            """, id: "tn-nomag")
        #expect(r.frames == ["xArbitraryZVertical"], "\(r.log)")
        #expect(!r.headings.isEmpty && r.headings.allSatisfy { $0 == -1 }, "\(r.headings)")
        #expect(r.events.filter { $0 == "notAvailable" }.count == 1, "\(r.events)\n\(r.log)")
    }

    @Test func trueNorthWithALocationAndAMagnetometerIsServed() throws {
        let dir = try Reliability.tempDirectory("truenorth-ok")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try run("""
            source: { type: simulator, simulator: { scenario: stationary } }
            fusion: { reference_frame: xTrueNorthZVertical, latitude: 52.5, longitude: 13.4 }
            state_directory: \(dir)
            \(Self.streams)
            """, id: "tn-ok")
        #expect(r.frames == ["xTrueNorthZVertical"], "\(r.log)")
        #expect(!r.events.contains("trueNorthNotAvailable") && !r.events.contains("notAvailable"), "\(r.events)")
    }
}
