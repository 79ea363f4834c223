import Platform
#if canImport(Glibc)
import Glibc
#endif

/// A condition variable for "something changed, re-check your predicate" with deadline waits on
/// CLOCK_MONOTONIC. Used for `waitUntilConnected`, the interruptible backoff sleep, and the bounded
/// waits of `disconnect(timeout:)`.
///
/// Contract: mutate the state first (atomics / other locks), then call `notifyAll()`. Waiters evaluate
/// their predicate while holding the internal mutex, so a notification cannot slip between the check
/// and the wait. Waits are additionally sliced to 100 ms as a safety net.
final class ChangeSignal: @unchecked Sendable {
    // Heap-allocated because pthread objects must not move; owned by this instance.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let cond: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        cond = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    /// Wakes every waiter so it re-evaluates its predicate.
    func notifyAll() {
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(cond)
        pthread_mutex_unlock(mutex)
    }

    /// Blocks until `done()` is true or the monotonic deadline (ns) passes, re-checking `done()`
    /// at least every `sliceNanos` (the safety net; the outbox pump, whose deadline is already
    /// bounded, passes its whole wait so an idle pump does not wake ten times a second).
    /// - Returns: the final value of `done()`.
    @discardableResult
    func wait(untilNanos deadline: UInt64, sliceNanos: UInt64 = 100_000_000, _ done: () -> Bool) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !done() {
            let now = MonotonicClock.nowNanos()
            if now >= deadline { return done() }
            let wake = min(deadline, now &+ sliceNanos)
            var ts = MonotonicClock.timespec(atNanos: wake)
            _ = pthread_cond_timedwait(cond, mutex, &ts)
        }
        return true
    }
}
