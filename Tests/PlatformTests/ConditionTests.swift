#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import Platform

/// `Condition`, the one wait primitive: a waiter sees every change that was notified, never waits
/// past its deadline, and never returns early with its predicate false before the deadline.
@Suite struct ConditionTests {
    private static func elapsed(since start: UInt64) -> Double {
        Double(MonotonicClock.nowNanos() - start) / 1e9
    }

    @Test func aWaitReturnsAsSoonAsAnotherThreadChangesTheStateAndNotifies() throws {
        let condition = Condition()
        let ready = Atomic<Bool>(false)
        let thread = try PlatformThread.start(name: "em-cond-notify") {
            MonotonicClock.sleep(untilNanos: MonotonicClock.nowNanos() + 50_000_000)
            ready.store(true, ordering: .releasing)
            condition.notifyAll()
        }
        defer { thread.join() }
        let start = MonotonicClock.nowNanos()
        // No slice: only the notification can end this wait before its 20 s deadline.
        let done = condition.wait(untilNanos: start + 20_000_000_000, sliceNanos: .max) { ready.load(ordering: .acquiring) }
        #expect(done)
        #expect(Self.elapsed(since: start) >= 0.05)
        #expect(Self.elapsed(since: start) < 10, "the notification did not wake the waiter")
    }

    @Test func aWaitWhosePredicateStaysFalseReturnsFalseAtItsDeadlineNotBefore() {
        let condition = Condition()
        let start = MonotonicClock.nowNanos()
        let done = condition.wait(untilNanos: start + 150_000_000, sliceNanos: 40_000_000) { false }
        #expect(!done)
        #expect(Self.elapsed(since: start) >= 0.15)
        #expect(Self.elapsed(since: start) < 5)
    }

    @Test func aDeadlineInThePastChecksThePredicateOnceAndReturns() {
        let condition = Condition()
        var checks = 0
        #expect(condition.wait(untilNanos: 0) { checks += 1; return true })
        #expect(!condition.wait(untilNanos: 0) { checks += 1; return false })
        #expect(checks == 2)
    }

    @Test func aChangeNobodyNotifiesIsStillSeenWithinTheSlice() throws {
        let condition = Condition()
        let ready = Atomic<Bool>(false)
        let thread = try PlatformThread.start(name: "em-cond-silent") {
            MonotonicClock.sleep(untilNanos: MonotonicClock.nowNanos() + 30_000_000)
            ready.store(true, ordering: .releasing)    // and no notify
        }
        defer { thread.join() }
        let start = MonotonicClock.nowNanos()
        let done = condition.wait(untilNanos: start + 20_000_000_000, sliceNanos: 20_000_000) { ready.load(ordering: .acquiring) }
        #expect(done)
        #expect(Self.elapsed(since: start) < 10)
    }

    /// Two threads hand a token back and forth 20 000 times through atomics outside the mutex,
    /// each waiting without a slice: one lost wake-up would stall the exchange until a 20 s
    /// deadline and fail it.
    @Test func noNotificationIsLostBetweenAWaitersCheckAndItsWait() throws {
        let condition = Condition()
        let turn = Atomic<Int>(0)        // even: main's turn, odd: the other thread's
        let rounds = 20_000
        let stalled = Atomic<Bool>(false)
        let thread = try PlatformThread.start(name: "em-cond-pingpong") {
            for k in 0..<rounds {
                let mine = 2 * k + 1
                if !condition.wait(untilNanos: MonotonicClock.nowNanos() + 20_000_000_000, sliceNanos: .max,
                                   { turn.load(ordering: .acquiring) == mine }) {
                    stalled.store(true, ordering: .relaxed)
                    return
                }
                turn.store(mine + 1, ordering: .releasing)
                condition.notifyOne()
            }
        }
        defer { thread.join() }
        for k in 0..<rounds {
            turn.store(2 * k + 1, ordering: .releasing)
            condition.notifyOne()
            let back = 2 * k + 2
            guard condition.wait(untilNanos: MonotonicClock.nowNanos() + 20_000_000_000, sliceNanos: .max,
                                 { turn.load(ordering: .acquiring) == back }) else {
                Issue.record("round \(k): the reply's notification was lost")
                return
            }
        }
        let stalledOnTheOtherSide = stalled.load(ordering: .relaxed)
        #expect(!stalledOnTheOtherSide)
        #expect(turn.load(ordering: .relaxed) == 2 * rounds)
    }

    @Test func notifyAllWakesEveryWaiter() throws {
        let condition = Condition()
        let open = Atomic<Bool>(false)
        let woken = Atomic<Int>(0)
        let waiting = Atomic<Int>(0)
        var threads: [PlatformThread] = []
        for k in 0..<3 {
            threads.append(try PlatformThread.start(name: "em-cond-waiter\(k)") {
                waiting.wrappingAdd(1, ordering: .relaxed)
                if condition.wait(untilNanos: MonotonicClock.nowNanos() + 20_000_000_000, sliceNanos: .max,
                                  { open.load(ordering: .acquiring) }) {
                    woken.wrappingAdd(1, ordering: .relaxed)
                }
            })
        }
        while waiting.load(ordering: .relaxed) < 3 { usleep(1000) }
        usleep(20_000)
        let start = MonotonicClock.nowNanos()
        open.store(true, ordering: .releasing)
        condition.notifyAll()
        for t in threads { t.join() }
        #expect(woken.load(ordering: .relaxed) == 3)
        #expect(Self.elapsed(since: start) < 10)
    }

    /// A queue guarded by the condition's own mutex: what the predicate saw is still there when the
    /// body runs, because both run under one hold of the lock.
    @Test func theBodyAfterAWaitSeesWhatThePredicateSaw() throws {
        final class Box: @unchecked Sendable { var items: [Int] = [] }   // guarded by `condition`
        let condition = Condition()
        let box = Box()
        let producer = try PlatformThread.start(name: "em-cond-producer") {
            for k in 1...1000 {
                condition.withLock { box.items.append(k) }
                condition.notifyOne()
            }
        }
        var taken: [Int] = []
        while taken.count < 1000 {
            let batch = condition.withLock(waitingUntilNanos: MonotonicClock.nowNanos() + 20_000_000_000, sliceNanos: .max,
                                           for: { !box.items.isEmpty }) { satisfied -> [Int] in
                #expect(satisfied)
                defer { box.items.removeAll() }
                return box.items
            }
            if batch.isEmpty { break }
            taken += batch
        }
        producer.join()
        #expect(taken == Array(1...1000))
    }
}
