import Testing
import TestSupport
@testable import Messaging

/// The reconnect loop's decisions (`ConnectionSupervisor`) on a clock written by hand: instants
/// are nanoseconds chosen in the test, jitter comes from a seeded generator, and each expected
/// wait is the 1-2-5 ceiling series of docs/messaging.md (0.1, 0.2, 0.5, 1, 2 s, capped), halved
/// at most by jitter.
@Suite("Connection supervisor")
struct ConnectionSupervisorTests {
    static let s: UInt64 = 1_000_000_000
    static let ms: UInt64 = 1_000_000
    /// initial 0.1 s, cap 3 s, stable after 10 s, CONNACK within 2 s.
    static let policy = MQTTReconnectPolicy(initialDelay: .milliseconds(100), maxDelay: .seconds(3),
                                            stableAfter: .seconds(10), connectTimeout: .seconds(2))

    func expectWithin(_ d: Duration, ceilingMs: Int64, _ comment: Comment? = nil) {
        let v = d.milliseconds
        #expect(v >= ceilingMs / 2 && v <= ceilingMs, "wait \(v) ms outside [\(ceilingMs / 2), \(ceilingMs)] ms \(comment.map { "\($0)" } ?? "")")
    }

    @Test func attemptsThatFailBackOffAlongTheSeriesAndCountUp() {
        var sup = ConnectionSupervisor(policy: Self.policy)
        var rng = SplitMix64(state: 11)
        var t: UInt64 = 50 * Self.s
        var numbers: [Int] = []
        for ceiling: Int64 in [100, 200, 500, 1000, 2000, 3000, 3000] {
            numbers.append(sup.nextAttemptNumber)
            sup.beginAttempt(now: t)
            let e = sup.ended(now: t + 5 * Self.ms, using: &rng)
            #expect(!e.wasConnected, "never connected: a failed attempt, not a lost connection")
            expectWithin(e.retryIn, ceilingMs: ceiling)
            #expect(sup.phase == .backingOff(untilNanos: t + 5 * Self.ms + UInt64(e.retryIn.milliseconds) * Self.ms))
            t += 10 * Self.s
        }
        #expect(numbers == [1, 2, 3, 4, 5, 6, 7])
    }

    @Test func anAttemptTimesOutOnlyAfterTheConnectTimeout() {
        var sup = ConnectionSupervisor(policy: Self.policy)
        let t0: UInt64 = 7 * Self.s
        #expect(!sup.attemptTimedOut(now: t0 + 100 * Self.s), "no attempt running: nothing to time out")
        sup.beginAttempt(now: t0)
        #expect(!sup.attemptTimedOut(now: t0 + 2 * Self.s), "exactly 2 s is still in time")
        #expect(sup.attemptTimedOut(now: t0 + 2 * Self.s + 1))
        sup.connected(now: t0 + 1 * Self.s)
        #expect(!sup.attemptTimedOut(now: t0 + 60 * Self.s), "a connected client has no CONNACK to wait for")
    }

    @Test func aConnectionThatStayedUpTenSecondsStartsTheSeriesAgain() {
        var sup = ConnectionSupervisor(policy: Self.policy)
        var rng = SplitMix64(state: 3)
        var t: UInt64 = Self.s
        for _ in 0..<4 { sup.beginAttempt(now: t); _ = sup.ended(now: t, using: &rng); t += Self.s }
        #expect(sup.nextAttemptNumber == 5)
        sup.beginAttempt(now: t)
        sup.connected(now: t + 20 * Self.ms)
        #expect(sup.isConnected)
        let lost = sup.ended(now: t + 20 * Self.ms + 10 * Self.s, using: &rng)
        #expect(lost.wasConnected)
        expectWithin(lost.retryIn, ceilingMs: 100, "back to the first step")
        #expect(lost.failures == 1)
        #expect(sup.nextAttemptNumber == 2)
    }

    @Test func aConnectionLostBeforeItWasStableKeepsBackingOff() {
        var sup = ConnectionSupervisor(policy: Self.policy)
        var rng = SplitMix64(state: 5)
        var t: UInt64 = Self.s
        for _ in 0..<3 { sup.beginAttempt(now: t); _ = sup.ended(now: t, using: &rng); t += Self.s }
        sup.beginAttempt(now: t)
        sup.connected(now: t)
        // A broker that accepts and drops at once (a flapping link) must not be hammered.
        let lost = sup.ended(now: t + 10 * Self.s - 1, using: &rng)
        #expect(lost.wasConnected)
        expectWithin(lost.retryIn, ceilingMs: 1000, "the fourth wait of the series")
        #expect(lost.failures == 4)
    }

    @Test func onlyAnAttemptCanBecomeConnected() {
        var sup = ConnectionSupervisor(policy: Self.policy)
        sup.connected(now: Self.s)
        #expect(sup.phase == .idle, "a CONNACK seen with no attempt running is ignored")
        var rng = SplitMix64(state: 1)
        sup.beginAttempt(now: Self.s)
        _ = sup.ended(now: Self.s, using: &rng)
        sup.connected(now: 2 * Self.s)
        #expect(!sup.isConnected, "backing off is not connected")
    }
}
