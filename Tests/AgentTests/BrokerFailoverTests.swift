import Testing
@testable import Agent

/// When the agent moves to the next broker, on instants written by hand (seconds → ns): after
/// `failover_after_s` of being unreachable, in order, wrapping, and never while connected or with
/// one broker (docs/configuration.md, `mqtt.fallback_brokers`).
@Suite("Broker failover")
struct BrokerFailoverTests {
    static func at(_ seconds: Double) -> UInt64 { UInt64(seconds * 1e9) }

    @Test func movesToTheNextBrokerAfterTheConfiguredTimeUnreachable() {
        var f = BrokerFailover()
        // Three brokers, failover after 30 s; the connection is down from t = 100 s.
        #expect(f.check(connected: false, now: Self.at(100), brokers: 3, afterSeconds: 30) == nil, "the first turn only notes the time")
        #expect(f.check(connected: false, now: Self.at(129.9), brokers: 3, afterSeconds: 30) == nil)
        #expect(f.check(connected: false, now: Self.at(130), brokers: 3, afterSeconds: 30) == 1)
        f.moved(to: 1)
        #expect(f.index == 1 && f.failovers == 1)
        // The new broker gets its own 30 s, counted from the move.
        #expect(f.check(connected: false, now: Self.at(159), brokers: 3, afterSeconds: 30) == nil)
        #expect(f.check(connected: false, now: Self.at(160), brokers: 3, afterSeconds: 30) == 2)
        f.moved(to: 2)
        #expect(f.check(connected: false, now: Self.at(190), brokers: 3, afterSeconds: 30) == 0, "wraps to the first")
    }

    @Test func aConnectionAtAnyTurnStartsTheWaitAgain() {
        var f = BrokerFailover()
        _ = f.check(connected: false, now: Self.at(0), brokers: 2, afterSeconds: 10)
        #expect(f.check(connected: true, now: Self.at(9), brokers: 2, afterSeconds: 10) == nil)
        #expect(f.disconnectedSince == nil)
        _ = f.check(connected: false, now: Self.at(11), brokers: 2, afterSeconds: 10)
        #expect(f.check(connected: false, now: Self.at(20), brokers: 2, afterSeconds: 10) == nil, "only 9 s since it went down again")
        #expect(f.check(connected: false, now: Self.at(21), brokers: 2, afterSeconds: 10) == 1)
    }

    @Test func oneBrokerNeverFailsOver() {
        var f = BrokerFailover()
        for t in stride(from: 0.0, through: 3600, by: 60) {
            #expect(f.check(connected: false, now: Self.at(t), brokers: 1, afterSeconds: 1) == nil)
        }
        #expect(f.failovers == 0)
    }

    @Test func aBrokerWhoseClientCannotBeMadeIsSkippedAndAReloadStartsAtTheFirst() {
        var f = BrokerFailover()
        _ = f.check(connected: false, now: Self.at(0), brokers: 3, afterSeconds: 5)
        #expect(f.check(connected: false, now: Self.at(5), brokers: 3, afterSeconds: 5) == 1)
        f.skipped(1)
        #expect(f.failovers == 0, "nothing was installed")
        #expect(f.check(connected: false, now: Self.at(10), brokers: 3, afterSeconds: 5) == 2)
        f.moved(to: 2)
        f.restartAtFirstBroker()
        #expect(f.index == 0 && f.failovers == 1, "the count of moves stays for health")
    }
}
