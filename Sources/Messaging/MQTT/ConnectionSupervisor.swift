import Platform

/// The network thread's reconnect decisions as a pure state machine: attempt → connected → lost
/// (or attempt → failed) → backing off → attempt. Time comes in as monotonic nanoseconds (the
/// caller's clock: `MonotonicClock` in the client, hand-written instants in
/// `ConnectionSupervisorTests`), randomness as a generator, so every branch is testable without
/// a socket or a sleep. The network loop does the I/O and asks this value what it means.
///
/// Value type owned by the network thread.
struct ConnectionSupervisor: Sendable {
    enum Phase: Equatable, Sendable {
        /// Before the first attempt.
        case idle
        /// `connect` was called at `startedNanos`; no CONNACK yet. `number`: 1 for the first
        /// attempt after a stable connection (or the start), counting up while attempts fail.
        case attempting(number: Int, startedNanos: UInt64)
        /// CONNACK accepted at `sinceNanos`.
        case connected(sinceNanos: UInt64)
        /// Waiting until `untilNanos` before the next attempt.
        case backingOff(untilNanos: UInt64)
    }

    /// How an attempt or a connection ended.
    struct Ending: Equatable, Sendable {
        /// The connection had been up (`connectionLost`), rather than never made (`connectionFailed`).
        let wasConnected: Bool
        /// The wait before the next attempt.
        let retryIn: Duration
        /// Consecutive failures counted by the backoff (logged as `attempt`).
        let failures: Int
    }

    private(set) var phase: Phase = .idle
    private(set) var backoff: ReconnectBackoff
    /// An attempt without CONNACK for longer than this has failed (nanoseconds).
    let connectTimeoutNanos: UInt64
    /// A connection up at least this long resets the backoff (nanoseconds).
    let stableNanos: UInt64

    init(policy: MQTTReconnectPolicy) {
        backoff = ReconnectBackoff(policy: policy)
        connectTimeoutNanos = UInt64(max(1, policy.connectTimeout.milliseconds)) * 1_000_000
        stableNanos = UInt64(max(0, policy.stableAfter.milliseconds)) * 1_000_000
    }

    /// The number of the next attempt (for `.connecting(attempt:)`): 1 after a stable
    /// connection or at the start, counting up while attempts fail.
    var nextAttemptNumber: Int { backoff.failures + 1 }

    /// The socket is open at `now` and the CONNACK awaited: `connectTimeout` counts from here.
    mutating func beginAttempt(now: UInt64) {
        phase = .attempting(number: nextAttemptNumber, startedNanos: now)
    }

    /// The broker accepted the connection at `now` (only an attempt can become connected).
    mutating func connected(now: UInt64) {
        guard case .attempting = phase else { return }
        phase = .connected(sinceNanos: now)
    }

    var isConnected: Bool {
        if case .connected = phase { return true }
        return false
    }

    /// Whether the running attempt has waited for its CONNACK longer than `connectTimeout`.
    func attemptTimedOut(now: UInt64) -> Bool {
        guard case .attempting(_, let started) = phase else { return false }
        return now &- started > connectTimeoutNanos
    }

    /// The attempt failed or the connection was lost at `now`: a connection that lasted
    /// `stableAfter` resets the backoff first; then the next wait is drawn and the phase becomes
    /// `backingOff` until `now + retryIn`.
    mutating func ended<R: RandomNumberGenerator>(now: UInt64, using rng: inout R) -> Ending {
        var wasConnected = false
        if case .connected(let since) = phase {
            wasConnected = true
            if now &- since >= stableNanos { backoff.reset() }
        }
        let delay = backoff.nextDelay(using: &rng)
        phase = .backingOff(untilNanos: now &+ delay.nonNegativeNanoseconds)
        return Ending(wasConnected: wasConnected, retryIn: delay, failures: backoff.failures)
    }

    mutating func ended(now: UInt64) -> Ending {
        var g = SystemRandomNumberGenerator()
        return ended(now: now, using: &g)
    }
}
