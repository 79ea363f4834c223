import Platform

/// Reconnect backoff: quick first retries, then a low cap (see `MQTTReconnectPolicy`).
///
/// The ceiling follows the 1-2-5 series from `initialDelay` — with the default 0.1 s:
/// 0.1, 0.2, 0.5, 1, 2, 5 s … — capped at `maxDelay`; each wait is drawn uniformly from
/// `[ceiling / 2, ceiling]` (jitter that spreads a fleet's reconnects without ever spinning).
/// A short broker restart is thus noticed within a fraction of a second of its return, and a long
/// outage costs one attempt per `maxDelay` at most.
///
/// Value type owned by the network thread; `nextDelay` is called once per failed attempt.
struct ReconnectBackoff {
    let policy: MQTTReconnectPolicy
    /// Consecutive failures since the last stable connection.
    private(set) var failures = 0

    init(policy: MQTTReconnectPolicy) { self.policy = policy }

    /// Multipliers of `initialDelay` for the first attempts; then ×10 per three attempts.
    private static let series: [Double] = [1, 2, 5]

    /// Ceiling for the current failure count: `min(maxDelay, initialDelay · {1,2,5}·10^k)`.
    var ceiling: Duration {
        let initial = Double(policy.initialDelay.milliseconds)
        let cap = Double(policy.maxDelay.milliseconds)
        let n = min(failures, 60)
        var factor = Self.series[n % 3]
        var decades = n / 3
        while decades > 0, factor * initial < cap { factor *= 10; decades -= 1 }
        return .milliseconds(Int64(min(cap, initial * factor)))
    }

    /// Records a failure and returns how long to wait before the next attempt.
    mutating func nextDelay<R: RandomNumberGenerator>(using rng: inout R) -> Duration {
        let hi = max(1, ceiling.milliseconds)
        let lo = max(1, hi / 2)
        failures += 1
        return .milliseconds(Int64.random(in: lo...hi, using: &rng))
    }

    mutating func nextDelay() -> Duration {
        var g = SystemRandomNumberGenerator()
        return nextDelay(using: &g)
    }

    /// A connection stayed up long enough: start again from `initialDelay`.
    mutating func reset() { failures = 0 }
}
