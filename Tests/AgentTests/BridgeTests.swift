import Foundation
import Testing
import Messaging
import TestSupport

/// `deploy/mosquitto/edgemotion-bridge.conf`: the agent publishes to a local mosquitto that bridges
/// `edgemotion/#` to an upstream mosquitto; the upstream is stopped and restarted; a subscriber on
/// the upstream (persistent session, QoS 1) is what a fleet's consumer sees.
///
/// The outage lasts `EDGEMOTION_BRIDGE_OUTAGE_S` seconds, 20 by default so the suite stays short;
/// issue 20's 60 s: `EDGEMOTION_BRIDGE_OUTAGE_S=60 swift test --skip-build --filter BridgeTests`.
@Suite("Bridged brokers", .serialized, .ownThread)
struct BridgeTests {
    static let samplePath = ConfigTestSupport.packageRoot.path + "/deploy/mosquitto/edgemotion-bridge.conf"
    static let outageSeconds = ProcessInfo.processInfo.environment["EDGEMOTION_BRIDGE_OUTAGE_S"].flatMap(Double.init) ?? 20

    /// The local broker's config: edgemotion-local.conf and the bridge sample, with the upstream's
    /// address and a private persistence directory instead of the samples' fixed ones.
    static func localBrokerConfig(upstreamPort: Int, directory: String) throws -> String {
        let bridge = try String(contentsOfFile: samplePath, encoding: .utf8).split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
            .map { $0.hasPrefix("address ") ? "address 127.0.0.1:\(upstreamPort)" : $0 }
        return (try BrokerSampleTests.sampleDirectives() + ["persistence true", "persistence_location \(directory)/"] + bridge)
            .joined(separator: "\n")
    }

    @Test func theSampleBridgesEverythingOutAtQoS1WithAPersistentSessionAndTLSReady() throws {
        let text = try String(contentsOfFile: Self.samplePath, encoding: .utf8)
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("topic edgemotion/# out 1"))
        #expect(lines.contains("cleansession false"), "without it the local broker does not queue for the bridge")
        #expect(lines.contains { $0.hasPrefix("remote_clientid ") })
        for tls in ["#bridge_cafile", "#bridge_certfile", "#bridge_keyfile", "#bridge_tls_version"] {
            #expect(lines.contains { $0.hasPrefix(tls + " ") }, "TLS option \(tls) documented")
        }
    }

    @Test func anUpstreamOutageLosesNoQoS1MessageAndQoS0LossIsOneSeqGapPerStream() throws {
        let dir = try Reliability.tempDirectory("bridge")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/local", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/upstream", withIntermediateDirectories: true)
        let upstream = try Reliability.persistentBroker(dir + "/upstream")
        defer { upstream.stop() }
        let local = try MosquittoBroker.start(extraConfig: try Self.localBrokerConfig(upstreamPort: upstream.port, directory: dir + "/local"))
        defer { local.stop() }
        let prefix = "edgemotion/bridged"
        let sub = try SessionSubscriber(url: upstream.url, pattern: prefix + "/#")
        let config = try AgentProcess.writeConfig(Reliability.config(id: "bridged", stateDirectory: dir + "/state", extra: """
        debug: { synthetic_events_per_minute: 600 }
        """))
        let agent = try AgentProcess(["run", "--config", config, "--broker", local.url])
        defer { agent.signal(); agent.waitForExit(timeout: 10) }
        #expect(sub.waitForOnline(prefix + "/status", moreThan: 0, timeout: 20),
                "nothing came over the bridge; local broker log:\n\(local.log().suffix(3000))")
        usleep(3_000_000)

        let motionBefore = sub.messages(on: prefix + "/motion").count
        upstream.stop()
        usleep(UInt32(Self.outageSeconds * 1_000_000))
        try upstream.relaunch()
        let restarted = Date()
        let resumed = sub.waitUntil(timeout: 30) { sub.messages(on: prefix + "/motion").count > motionBefore + 1 }
        let bridgeSeconds = Date().timeIntervalSince(restarted)
        #expect(resumed, "the bridge did not come back; local broker log:\n\(local.log().suffix(3000))")
        usleep(3_000_000)
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 15) == 0, "agent log:\n\(agent.log.suffix(2000))")
        sub.waitForQuiet(2, timeout: 60)

        let stats = try #require(sub.json(on: prefix + "/stats").last, "no final stats over the bridge")
        // The agent never lost its (local) broker: it dropped nothing and saw no reconnection.
        #expect(stats["mqtt_reconnects"] as? Int == 0)

        // QoS 1 events: every one produced arrives at the upstream subscriber, once by seq.
        let produced = try #require(Reliability.outboxTopic(stats, "events/synthetic")?["produced"] as? Int)
        let raw = Reliability.events(sub, prefix: prefix)
        let events = Set(raw)
        #expect(produced >= Int(Self.outageSeconds * 10), "about 10 events/s for the whole run: \(produced)")
        #expect(events.map(\.seq).sorted() == Array(0..<produced), "received \(events.count) distinct of \(produced)")
        // QoS 1 stream (accelerometer): every batch, none dropped anywhere.
        let acc = try #require(Reliability.account(stats, sub, prefix: prefix, stream: "accelerometer"))
        #expect(acc.droppedTotal == 0 && acc.delivered.count == acc.produced, "accelerometer (QoS 1): \(acc)")

        // QoS 0 stream (motion, 10 batches/s): the agent delivered every batch to the local broker
        // (published == produced, nothing dropped); the bridge drops what arrives while it is down.
        // The subscriber sees that as exactly one gap in seq, as long as the outage plus the
        // bridge's reconnection.
        let motionTopic = try #require(Reliability.outboxTopic(stats, "motion"))
        let motion = Reliability.StreamAccount(produced: motionTopic["produced"] as? Int ?? -1, acknowledged: motionTopic["acknowledged"] as? Int ?? -1,
                                               dropped: motionTopic["dropped"] as? [String: Int] ?? [:],
                                               delivered: Set(sub.json(on: prefix + "/motion").compactMap { $0["seq"] as? Int }))
        #expect(motion.droppedTotal == 0 && motion.acknowledged == motion.produced, "motion (QoS 0) at the agent: \(motion)")
        let gaps = Self.gaps(in: motion.delivered, produced: motion.produced)
        #expect(gaps.count == 1, "motion seq gaps: \(gaps)")
        let lost = gaps.map(\.count).reduce(0, +)
        #expect(motion.delivered.count + lost == motion.produced)
        let low = Int((Self.outageSeconds - 1) * 10), high = Int((Self.outageSeconds + bridgeSeconds + 2) * 10)
        #expect((low...high).contains(lost), "lost \(lost) motion batches; outage \(Self.outageSeconds) s + bridge back after \(bridgeSeconds) s at 10/s")
        print("bridge outage \(Int(Self.outageSeconds)) s: events \(produced) produced, \(events.count) distinct, \(raw.count - events.count) duplicates; "
              + "accelerometer (QoS 1) \(acc.delivered.count)/\(acc.produced); motion (QoS 0) lost \(lost) of \(motion.produced) in \(gaps.count) gap; "
              + "bridge delivering again \(String(format: "%.1f", bridgeSeconds)) s after the restart")
    }

    /// Maximal runs of seq numbers in 0..<produced that were not delivered.
    static func gaps(in delivered: Set<Int>, produced: Int) -> [ClosedRange<Int>] {
        var out: [ClosedRange<Int>] = []
        var start: Int?
        for s in 0..<produced {
            if delivered.contains(s) { if let b = start { out.append(b...(s - 1)); start = nil } } else if start == nil { start = s }
        }
        if let b = start { out.append(b...(produced - 1)) }
        return out
    }
}
