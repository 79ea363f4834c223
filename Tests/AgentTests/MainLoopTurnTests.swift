#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import Messaging
import TestSupport
@testable import Agent

/// Blocks the wake signal in the calling thread, as `SignalWaiter.blockSignals()` does for the
/// whole `edgemotion run` process (here only for the thread a test starts).
private func blockWakeSignal() {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SignalWaiter.wakeSignal)
    pthread_sigmask(SIG_BLOCK, &set, nil)
}

/// The main loop sleeps until something is due instead of turning every 100 ms; other threads
/// wake it (`MainLoopWaker`) when they have work for it.
@Suite("Agent main loop: a turn when something is due", .serialized, .ownThread)
struct MainLoopTurnTests {
    /// The wait after a turn that began at t = 10 s: the nearest later deadline, never past 1 s
    /// (100 ms while something is polled), never below 1 ms; deadlines at or before the turn were
    /// the turn's own and do not shorten it.
    @Test func theWaitEndsAtTheNearestLaterDeadline() {
        let s: UInt64 = 1_000_000_000, now = 10 * s
        #expect(AgentRunner.turnTimeout(now: now, deadlines: [], fast: false) == 1.0)
        #expect(AgentRunner.turnTimeout(now: now, deadlines: [], fast: true) == 0.1)
        #expect(abs(AgentRunner.turnTimeout(now: now, deadlines: [now + 400_000_000, now + 5 * s], fast: false) - 0.4) < 1e-9)
        #expect(AgentRunner.turnTimeout(now: now, deadlines: [0, now], fast: false) == 1.0)
        #expect(AgentRunner.turnTimeout(now: now, deadlines: [now + 1000], fast: false) == 0.001)
        #expect(abs(AgentRunner.turnTimeout(now: now, deadlines: [now + 50_000_000], fast: true) - 0.05) < 1e-9)
    }

    /// One signal per burst of wakes: a hundred wakes before the loop takes them end one wait with
    /// `.wake`; the next wait sees no signal. (The loop waits only after all hundred were sent:
    /// a wake sent after `take()` rightly asks for another turn, so letting the loop race the
    /// sender made this test fail now and then under load.)
    @Test func aWakeEndsTheWaitAndAFloodOfWakesIsOneSignal() {
        let waker = MainLoopWaker()
        let armed = DispatchSemaphore(value: 0), sent = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let seen = LockedBox<[SignalWaiter.Received?]>([])
        Thread.detachNewThread {
            blockWakeSignal()
            waker.arm()
            armed.signal()
            sent.wait()   // the signal is blocked: it stays pending until the wait takes it
            let first = SignalWaiter.wait(timeout: 10)
            waker.take()
            let second = SignalWaiter.wait(timeout: 0.2)
            seen.value = [first, second]
            done.signal()
        }
        armed.wait()
        #expect(waker.isArmed)
        for _ in 0..<100 { waker.wake() }
        sent.signal()
        #expect(done.wait(timeout: .now() + 15) == .success)
        #expect(seen.value == [.wake, nil])
    }

    /// A thread that does not block the wake signal is never sent it (its default action would
    /// end the process): the waker stays unarmed and the loop keeps its 100 ms turns.
    @Test func aThreadThatDoesNotBlockTheSignalIsNotArmed() {
        let waker = MainLoopWaker()
        let done = DispatchSemaphore(value: 0)
        let armed = LockedBox(true)
        Thread.detachNewThread {
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SignalWaiter.wakeSignal)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            waker.arm()
            armed.value = waker.isArmed
            waker.wake()   // a no-op: the process goes on
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(armed.value == false)
    }

    /// Sampling, connected, nothing polled: over 3 s the loop turns for its 1 s stats interval
    /// and its 1 s idle bound (at most ~2 a second; a 100 ms loop turned 30 times), and a command
    /// sent meanwhile is still answered.
    @Test func anIdleAgentTurnsAboutOnceASecondAndACommandIsStillAnswered() throws {
        let broker = try MosquittoBroker.start()
        let sub = try TestSubscriber(url: broker.url, patterns: ["edgemotion/turns/#"])
        let dir = try Reliability.tempDirectory("turns")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let yaml = Reliability.config(id: "turns", stateDirectory: dir, extra: "mqtt: { broker: \"\(broker.url)\" }\ncontrol: { enabled: true }")
        let runner = try AgentRunner(configuration: try ConfigurationLoader.parse(yaml: yaml, fileName: "turns.yaml"))
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            blockWakeSignal()
            _ = runner.run(duration: 12)
            finished.signal()
        }
        #expect(sub.waitFor(count: 2, topic: "edgemotion/turns/health", timeout: .seconds(8)).count >= 1)
        #expect(runner.waker.isArmed)
        let before = runner.turns.load(ordering: .relaxed)
        usleep(3_000_000)
        let idle = runner.turns.load(ordering: .relaxed) - before
        #expect(idle >= 2 && idle <= 8, "\(idle) turns in 3 s")
        try sub.client.publish(topic: "edgemotion/turns/cmd/events", string: #"{"id":"w"}"#, qos: 1)
        let replies = sub.waitFor(count: 1, topic: "edgemotion/turns/cmd/events/result", timeout: .seconds(5))
        #expect(replies.first?.payloadString.contains("\"w\"") == true, "\(replies.map(\.payloadString))")
        runner.requestStop()
        #expect(finished.wait(timeout: .now() + 15) == .success)
    }
}
