#if canImport(Glibc)
import Glibc
#endif

/// The one wait primitive: a mutex and a condition variable on `CLOCK_MONOTONIC`, for "something
/// changed, re-check your predicate" with deadline waits. Every thread in the agent that blocks
/// until another one says so waits here: the MQTT client (connected, acknowledgements drained,
/// backoff sleeps), the outbox pump and its producers, the pipeline's processing thread (the
/// doorbell), its held delivery and its end, and each dashboard page's event queue.
///
/// Contract: change the state first (inside `withLock`, or atomics and other locks outside it),
/// then call `notifyOne()` or `notifyAll()`. Waiters evaluate their predicate with the mutex held
/// and the notification takes the mutex before it signals, so a change cannot slip between a
/// waiter's check and its wait, even when the state is an atomic outside the mutex.
///
/// `@unchecked Sendable`: the pthread objects are allocated once, at stable addresses, used only
/// through pthread calls (which are thread-safe by definition) and destroyed in `deinit`, when no
/// other reference, hence no waiter, exists.
public final class Condition: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let cond: UnsafeMutablePointer<pthread_cond_t>

    /// How often a wait re-checks its predicate without a notification, by default: a safety net
    /// for a state change whose notification was forgotten, cheap at 10 checks a second.
    public static let defaultSliceNanos: UInt64 = 100_000_000

    public init() {
        mutex = .allocate(capacity: 1)
        cond = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` with the mutex held: the place to read and change state this condition guards.
    /// Not re-entrant (do not wait or take the lock again inside `body`).
    public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Wakes one waiter (for a condition only one thread waits on, or when any one may proceed).
    public func notifyOne() {
        // Taking the mutex orders this after any waiter's check; the signal itself may come after
        // the unlock (a waiter registered before it released the mutex), so the woken thread does
        // not immediately block on a mutex still held here.
        pthread_mutex_lock(mutex)
        pthread_mutex_unlock(mutex)
        pthread_cond_signal(cond)
    }

    /// Wakes every waiter so each re-evaluates its predicate.
    public func notifyAll() {
        pthread_mutex_lock(mutex)
        pthread_mutex_unlock(mutex)
        pthread_cond_broadcast(cond)
    }

    /// Blocks until `done()` is true or the `CLOCK_MONOTONIC` deadline (ns) passes, re-checking
    /// `done()` at least every `sliceNanos` (pass the whole wait, or `.max`, to sleep undisturbed).
    /// `done` runs with the mutex held. `UInt64.max` waits without a deadline.
    /// - Returns: the final value of `done()`.
    @discardableResult
    public func wait(untilNanos deadline: UInt64, sliceNanos: UInt64 = Condition.defaultSliceNanos,
                     _ done: () -> Bool) -> Bool {
        withLock(waitingUntilNanos: deadline, sliceNanos: sliceNanos, for: done) { $0 }
    }

    /// Waits like `wait(untilNanos:sliceNanos:_:)`, then runs `body` under the same hold of the
    /// mutex, so what the predicate saw is still true there. `body` gets the final `done()`.
    public func withLock<R>(waitingUntilNanos deadline: UInt64, sliceNanos: UInt64 = Condition.defaultSliceNanos,
                            for done: () -> Bool, _ body: (_ satisfied: Bool) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var satisfied = done()
        while !satisfied {
            let now = MonotonicClock.nowNanos()
            if now >= deadline { break }
            let wake = deadline &- now > sliceNanos ? now &+ sliceNanos : deadline
            var ts = MonotonicClock.timespec(atNanos: wake)
            _ = pthread_cond_timedwait(cond, mutex, &ts)
            satisfied = done()
        }
        return try body(satisfied)
    }
}
