#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Ends the main loop's wait early when another thread has work for it (a command arrived, a
/// stop, reload or health change was asked for), so the loop can sleep until its next deadline
/// instead of turning every 100 ms.
///
/// `arm()` runs on the main loop's thread; it takes effect only when that thread blocks
/// `SignalWaiter.wakeSignal` (`SignalWaiter.blockSignals()` ran first, as `edgemotion run` does).
/// Otherwise (an agent embedded in a process that never blocked it, e.g. a test) `isArmed` stays
/// false and the loop keeps its 100 ms turns: sending the signal would end the process.
/// `wake()` sends at most one signal until the loop takes it (`take()`), so a flood of
/// commands queues one wake, not one real-time signal each.
final class MainLoopWaker: Sendable {
    /// The main loop's thread, once armed.
    private let thread = Mutex<pthread_t?>(nil)
    private let pending = Atomic<Bool>(false)
    private let armed = Atomic<Bool>(false)

    /// Whether wakes reach the loop (its thread blocks the wake signal).
    var isArmed: Bool { armed.load(ordering: .acquiring) }

    /// Called on the main loop's thread before its first wait.
    func arm() {
        guard SignalWaiter.callingThreadBlocksWake else { return }
        thread.withLock { $0 = pthread_self() }
        armed.store(true, ordering: .releasing)
    }

    /// Any thread: the loop should take a turn now.
    func wake() {
        guard isArmed, !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let t = thread.withLock({ $0 }) { _ = pthread_kill(t, SignalWaiter.wakeSignal) }
    }

    /// The loop, at the start of a turn: wakes asked for from now on send a new signal.
    func take() { pending.store(false, ordering: .releasing) }
}
