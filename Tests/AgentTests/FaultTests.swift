import Foundation
import Testing
import Messaging
import TestSupport

// MARK: Fault injection

/// Real mosquitto, the real `edgemotion` binary, faults injected from outside. Each test bounds
/// its own duration (seconds, not minutes); the long versions are in `scripts/soak`.
@Suite("Fault injection", .serialized, .ownThreadCriticalPath)
struct FaultTests {
    /// The issue's outage: the broker is away for 30 s (after a 1 s freeze). The broker is stopped with SIGTERM so its
    /// persistence keeps the subscriber's session — a SIGKILLed broker loses messages it had
    /// acknowledged but not yet delivered, which no client can prevent. `reconnect_max_s: 2` bounds
    /// the agent's reconnect delay after the broker is back (the default cap is 30 s).
    @Test func brokerOutageLosesNoEventAndEveryStreamBatchIsDeliveredOrCountedAsDropped() throws {
        let dir = try Reliability.tempDirectory("outage")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try Reliability.persistentBroker(dir)
        let sub = try SessionSubscriber(url: broker.url, pattern: "edgemotion/outage/#")
        let config = try AgentProcess.writeConfig(Reliability.config(id: "outage", stateDirectory: dir, extra: """
        outbox: { max_bytes: 16384 }
        mqtt: { reconnect_max_s: 2 }
        debug: { synthetic_events_per_minute: 600 }
        """))
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        #expect(sub.waitForOnline("edgemotion/outage/status", moreThan: 0, timeout: 15), "the agent did not connect; log:\n\(agent.log.suffix(2000))")
        usleep(2_000_000)
        let onlineBefore = sub.onlineCount("edgemotion/outage/status")
        // Frozen for 1 s first, so the agent has QoS 1 messages in flight (written, no PUBACK)
        // when the broker dies: they must be resent, not lost or counted twice.
        broker.pause()
        usleep(1_000_000)
        broker.stop()
        usleep(30_000_000)
        try broker.restart()
        let restarted = Date()
        #expect(sub.waitForOnline("edgemotion/outage/status", moreThan: onlineBefore, timeout: 20), "the agent did not reconnect; log:\n\(agent.log.suffix(2000))")
        let reconnectSeconds = Date().timeIntervalSince(restarted)
        // Running normally again: a `stats` made after the reconnect shows the backlog delivered.
        let statsBefore = sub.messages(on: "edgemotion/outage/stats").count
        // The 30 s backlog (~300 spooled events, each waiting for its PUBACK, and a full stream
        // queue) took 2–13 s to drain on an idle machine; the bound is generous so a loaded CI
        // machine does not fail it. Caught up = back to the steady state: at most one second of
        // production waiting (10 events/s, 20 stream batches/s). Production goes on, so "exactly
        // 0" is a moment a 1 s stats snapshot need not catch on a loaded machine (seen: every
        // event delivered, yet no snapshot at 0 in 60 s).
        let outboxAfter = { sub.json(on: "edgemotion/outage/stats").dropFirst(statsBefore).compactMap { $0["outbox"] as? [String: Any] } }
        let caughtUp = sub.waitUntil(timeout: 60) {
            outboxAfter().contains { o in
                (o["unacknowledged_events"] as? Int).map { $0 <= 10 } == true && (o["queued_stream_messages"] as? Int).map { $0 <= 20 } == true
            }
        }
        let backlog = outboxAfter().suffix(8).map { "\($0["unacknowledged_events"] ?? "?")/\($0["queued_stream_messages"] ?? "?")" }
        #expect(caughtUp, "the outbox did not drain after the reconnect (last unacknowledged events/queued stream messages: \(backlog)); log:\n\(agent.log.suffix(2000))")
        let catchUpSeconds = Date().timeIntervalSince(restarted) - reconnectSeconds
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0, "agent log:\n\(agent.log)")
        sub.waitForQuiet()

        let stats = try #require(sub.json(on: "edgemotion/outage/stats").last, "no stats; agent log:\n\(agent.log)")
        // Events: every one produced arrives; after de-duplication by (run, seq) exactly 0..<produced.
        let produced = try #require(Reliability.outboxTopic(stats, "events/synthetic")?["produced"] as? Int)
        #expect(produced >= 300, "about 10 events/s for the whole run (≥ 33 s): \(produced)")
        let events = Set(Reliability.events(sub, prefix: "edgemotion/outage"))
        #expect(events.count == produced, "received \(events.count) distinct events of \(produced)")
        #expect(events.map(\.seq).sorted() == Array(0..<produced))
        // Raw stream (QoS 1): distinct batches delivered + counted drops == produced, exactly; every
        // acknowledged batch arrived; the outage forced drops.
        let acc = try #require(Reliability.account(stats, sub, prefix: "edgemotion/outage", stream: "accelerometer"))
        #expect(acc.droppedTotal > 0, "a 16 kB outbox must overflow during a 30 s outage: \(acc)")
        #expect(acc.delivered.count + acc.droppedTotal == acc.produced, "\(acc)")
        #expect(acc.acknowledged == acc.delivered.count, "\(acc)")
        #expect(acc.delivered.allSatisfy { (0..<acc.produced).contains($0) }, "seq beyond produced: \(acc)")
        #expect((stats["produced"] as? [String: Int])?["accelerometer"] == acc.produced, "stats.produced.accelerometer counts stream batches only")
        #expect(stats["mqtt_reconnects"] as? Int ?? 0 >= 1)
        let retransmitted = (stats["outbox"] as? [String: Any])?["retransmitted"] as? Int ?? -1
        #expect(retransmitted >= 1, "messages were in flight when the frozen broker was stopped")
        print("outage 30 s: accelerometer \(acc), events \(produced), retransmitted \(retransmitted), reconnected after \(Int(reconnectSeconds * 1000)) ms, caught up \(Int(catchUpSeconds * 1000)) ms later")
    }

    @Test func eventsSpooledWhenTheAgentIsKilledAreDeliveredAfterItsRestart() throws {
        let dir = try Reliability.tempDirectory("sigkill")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try Reliability.persistentBroker(dir)
        let sub = try SessionSubscriber(url: broker.url, pattern: "edgemotion/crash/#")
        let config = try AgentProcess.writeConfig(Reliability.config(id: "crash", stateDirectory: dir, extra: """
        spool: { fsync: never }
        debug: { synthetic_events_per_minute: 1200 }
        """))
        let first = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        usleep(2_000_000)
        broker.stop()              // events from now on stay unacknowledged, in the spool
        usleep(2_000_000)
        first.signal(SIGKILL)
        _ = first.waitForExit(timeout: 5)
        let spoolSize = (try? FileManager.default.attributesOfItem(atPath: dir + "/outbox.spool")[.size] as? Int) ?? 0
        #expect(spoolSize > 8, "the killed agent left events in its spool")
        let firstRun = Set(Reliability.events(sub, prefix: "edgemotion/crash").map(\.run))
        #expect(firstRun.count == 1)

        try broker.restart()
        let second = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        usleep(3_000_000)
        second.signal(SIGTERM)
        #expect(second.waitForExit(timeout: 10) == 0, "agent log:\n\(second.log)")
        usleep(500_000)
        #expect(second.log.contains("replaying unacknowledged events"), "second agent log:\n\(second.log)")
        let run1 = Reliability.events(sub, prefix: "edgemotion/crash").filter { firstRun.contains($0.run) }.map(\.seq)
        let distinct = Set(run1)
        // ~20 events/s for ~4 s before the kill; every one spooled arrives, none is missing in between.
        #expect(distinct.count >= 60, "only \(distinct.count) events of the killed run arrived")
        #expect(distinct.sorted() == Array(0..<distinct.count), "gaps in the killed run's events")
    }

    @Test func aDamagedSpoolIsReportedAndItsIntactEventsDelivered() throws {
        let dir = try Reliability.tempDirectory("damage")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let unreachable = "mqtt://127.0.0.1:\(try MosquittoBroker.freeLoopbackPort())"
        // Only synthetic events in the spool (activity events would also be spooled), so counts are exact.
        let config = try AgentProcess.writeConfig(Reliability.config(id: "damage", stateDirectory: dir, extra: """
        spool: { fsync: always }
        debug: { synthetic_events_per_minute: 1200 }
        activity: { enabled: false }
        """))
        // 1: no broker at all: every event stays in the spool.
        let first = try AgentProcess(["run", "--config", config, "--broker", unreachable, "--duration", "3"])
        #expect(first.waitForExit(timeout: 15) == 0, "agent log:\n\(first.log)")
        let path = dir + "/outbox.spool"
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let kept = try #require(first.log.firstMatch(of: /events_kept_in_spool=(\d+)/).flatMap { Int($0.1) })
        #expect(kept >= 40)
        // 2: damage: corrupt one byte in the middle, tear the last record.
        let marker = Array("\"seq\":10,".utf8)
        let at = try #require((0...(bytes.count - marker.count)).first { Array(bytes[$0..<$0 + marker.count]) == marker })
        bytes[at + 6] = UInt8(ascii: "9")
        bytes.removeLast(5)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        // 3: a broker appears; the agent starts, reports, delivers the intact events.
        let broker = try MosquittoBroker.start()
        let sub = try SessionSubscriber(url: broker.url, pattern: "edgemotion/damage/#")
        let second = try AgentProcess(["run", "--config", config, "--broker", broker.url, "--duration", "3"])
        #expect(second.waitForExit(timeout: 15) == 0, "agent log:\n\(second.log)")
        usleep(500_000)
        #expect(second.log.contains("spool damaged"), "log:\n\(second.log)")
        let health = try #require(sub.json(on: "edgemotion/damage/health").last)
        #expect(health["spool_corrupt_records"] as? Int == 2)
        let stats = try #require(sub.json(on: "edgemotion/damage/stats").last)
        #expect((stats["outbox"] as? [String: Any])?["replayed"] as? Int == kept - 2)
        let runs = Dictionary(grouping: Reliability.events(sub, prefix: "edgemotion/damage"), by: \.run)
        let oldRun = try #require(runs.values.first { Set($0.map(\.seq)).count == kept - 2 }, "runs: \(runs.mapValues(\.count))")
        let seqs = Set(oldRun.map(\.seq))
        #expect(!seqs.contains(10), "the corrupted record must not be delivered")
        #expect(!seqs.contains(kept - 1), "the torn last record must not be delivered")
    }

    @Test func aFrozenBrokerKeepsTheOutboxWithinItsBoundAndTheCountersMove() throws {
        let broker = try MosquittoBroker.start()
        let sub = try SessionSubscriber(url: broker.url, pattern: "edgemotion/frozen/#")
        let dir = try Reliability.tempDirectory("frozen")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = try AgentProcess.writeConfig(Reliability.config(id: "frozen", stateDirectory: dir, extra: """
        outbox: { max_bytes: 32768 }
        debug: { synthetic_events_per_minute: 600 }
        """))
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        usleep(2_000_000)
        let rssBefore = Reliability.rssKB(agent.pid)
        broker.pause()
        usleep(6_000_000)
        let rssDuring = Reliability.rssKB(agent.pid)
        broker.resume()
        usleep(3_000_000)
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0, "agent log:\n\(agent.log)")
        sub.waitForQuiet()
        let stats = try #require(sub.json(on: "edgemotion/frozen/stats").last)
        let acc = try #require(Reliability.account(stats, sub, prefix: "edgemotion/frozen", stream: "accelerometer"))
        let dropped = acc.dropped
        #expect(dropped["full", default: 0] > 0, "the 32 kB bound must drop batches while the broker is frozen: \(acc)")
        #expect(acc.delivered.count + acc.droppedTotal == acc.produced, "exact stream accounting: \(acc)")
        #expect(rssDuring - rssBefore < 8 * 1024, "RSS grew from \(rssBefore) kB to \(rssDuring) kB while the broker was frozen")
        let produced = Reliability.outboxTopic(stats, "events/synthetic")?["produced"] as? Int ?? -1
        #expect(Set(Reliability.events(sub, prefix: "edgemotion/frozen")).count == produced, "no event lost to the freeze")
        print("frozen broker: RSS \(rssBefore) kB → \(rssDuring) kB, accelerometer drops \(dropped)")
    }

    @Test func anUnreachableBrokerFailsOverToTheNextInTheListWhichStaysInUse() throws {
        let dir = try Reliability.tempDirectory("failover")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let deadURL = "mqtt://127.0.0.1:\(try MosquittoBroker.freeLoopbackPort())"
        let backup = try MosquittoBroker.start()
        let sub = try SessionSubscriber(url: backup.url, pattern: "edgemotion/failover/#")
        let config = try AgentProcess.writeConfig(Reliability.config(id: "failover", stateDirectory: dir, extra: """
        mqtt: { broker: "\(deadURL)", fallback_brokers: ["\(backup.url)"], failover_after_s: 1 }
        debug: { synthetic_events_per_minute: 600 }
        """))
        let agent = try AgentProcess(["run", "--config", config])
        // 5 s initial connect wait, then 1 s without a connection → failover.
        usleep(9_000_000)
        let before = sub.messages(on: "edgemotion/failover/sensor/accelerometer").count
        #expect(before >= 10, "log:\n\(agent.log)")
        #expect(agent.log.components(separatedBy: "failing over").count - 1 == 1, "sticky: one failover, log:\n\(agent.log)")
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0)
        usleep(300_000)
        let health = try #require(sub.json(on: "edgemotion/failover/health").last)
        #expect(health["broker"] as? String == backup.url)
        #expect(health["mqtt_failovers"] as? Int == 1)
        // Events made while no broker was reachable were kept and delivered after the failover.
        let stats = try #require(sub.json(on: "edgemotion/failover/stats").last)
        let produced = Reliability.outboxTopic(stats, "events/synthetic")?["produced"] as? Int ?? -1
        #expect(Set(Reliability.events(sub, prefix: "edgemotion/failover")).count == produced)
    }

    /// The issue's storm is 20 restarts in 2 minutes; the suite runs 10 in about 20 s (`scripts/soak`
    /// runs longer storms). RSS is sampled every 250 ms.
    @Test func aRestartStormKeepsMemoryBoundedAndLosesNoEvent() throws {
        let dir = try Reliability.tempDirectory("storm")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try Reliability.persistentBroker(dir)
        let sub = try SessionSubscriber(url: broker.url, pattern: "edgemotion/storm/#")
        let config = try AgentProcess.writeConfig(Reliability.config(id: "storm", stateDirectory: dir, extra: """
        mqtt: { reconnect_max_s: 2 }
        debug: { synthetic_events_per_minute: 600 }
        """))
        let agent = try AgentProcess(["run", "--config", config, "--broker", broker.url])
        usleep(2_000_000)
        // The issue's storm: 20 broker restarts at random times within 2 minutes (each one down
        // for 0.1–1 s), RSS sampled every 0.25 s throughout.
        var rss: [Int] = []
        // Seeded so a failing schedule replays: the seed is in the failure messages.
        let seed = SplitMix64.seed(default: 0x5707_2026)
        var rng = SplitMix64(state: seed)
        let schedule = "seed \(seed) (EDGEMOTION_TEST_SEED)"
        var onlineBefore = 0
        let restarts = 20, window = 120.0
        let times = (0..<restarts).map { _ in Double.random(in: 0..<(window - 2), using: &rng) }.sorted()
        let start = Date()
        for t in times {
            while Date().timeIntervalSince(start) < t { rss.append(Reliability.rssKB(agent.pid)); usleep(250_000) }
            onlineBefore = sub.onlineCount("edgemotion/storm/status")
            broker.stop()
            usleep(UInt32(Double.random(in: 0.1...1.0, using: &rng) * 1e6))
            try broker.restart()
        }
        // The final stats must reach the broker: stop only once the agent is connected again.
        #expect(sub.waitForOnline("edgemotion/storm/status", moreThan: onlineBefore), "\(schedule): the agent did not reconnect; log:\n\(agent.log.suffix(2000))")
        usleep(2_000_000)
        agent.signal(SIGTERM)
        #expect(agent.waitForExit(timeout: 10) == 0, "agent log:\n\(agent.log)")
        sub.waitForQuiet()
        let stats = try #require(sub.json(on: "edgemotion/storm/stats").last)
        let produced = try #require(Reliability.outboxTopic(stats, "events/synthetic")?["produced"] as? Int)
        let events = Set(Reliability.events(sub, prefix: "edgemotion/storm"))
        #expect(events.count == produced, "\(schedule): received \(events.count) distinct of \(produced) events")
        let acc = try #require(Reliability.account(stats, sub, prefix: "edgemotion/storm", stream: "accelerometer"))
        #expect(acc.delivered.count + acc.droppedTotal == acc.produced, "\(schedule): exact stream accounting across the storm: \(acc)")
        #expect(stats["mqtt_reconnects"] as? Int ?? 0 >= 2, "the storm must have cut the connection repeatedly (backoff grows across quick losses: fewer reconnects than restarts)")
        let third = max(1, rss.count / 3)
        let early = rss.prefix(third).reduce(0, +) / third
        let late = rss.suffix(third).reduce(0, +) / third
        let peak = rss.max() ?? 0
        #expect(peak < 64 * 1024, "\(schedule): RSS peak \(peak) kB")
        #expect(late <= early + early / 5 + 2048, "\(schedule): RSS trending up: \(early) kB → \(late) kB")
        print("restart storm: \(restarts) restarts in \(Int(Date().timeIntervalSince(start))) s, RSS early \(early) kB late \(late) kB peak \(peak) kB, \(produced) events, reconnects \(stats["mqtt_reconnects"] ?? "?"), accelerometer \(acc)")
    }
}
