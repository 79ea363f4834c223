import Glibc
import Platform
import Synchronization
import Testing
import TestSupport

/// `.ownThread` (TestSupport): a test that blocks runs on a thread of its own, not on one of the
/// concurrency pool's few threads.
@Suite(.ownThread)
struct OwnThreadTraitTests {
    @Test func aSynchronousTestRunsOnTheThreadNamedForIt() {
        #expect(ThreadName.current == "test-own-thread")
    }

    @Test func anAsynchronousTestRunsThereToo() async {
        await Task.yield()
        #expect(ThreadName.current == "test-own-thread")
    }

    /// Each case has its own thread: two cases that each wait for the other to arrive both finish
    /// (on one shared thread the first would wait forever; the bound turns that into a failure; it
    /// is long because the second case may wait for a free slot behind long tests).
    @Test(arguments: [0, 1]) func eachCaseOfAParameterizedTestHasItsOwnThread(_ index: Int) {
        Self.arrived.withLock { $0 += 1 }
        let deadline = MonotonicClock.deadline(after: .seconds(240))
        while Self.arrived.withLock({ $0 }) < 2 && MonotonicClock.nowNanos() < deadline { usleep(1_000) }
        #expect(Self.arrived.withLock { $0 } >= 2, "case \(index) waited 240 s for the other case")
    }
    static let arrived = Mutex(0)
}
