/// Capped exponential backoff with full jitter (see `MQTTReconnectPolicy`).
///
/// Value type owned by the network thread; `nextDelay` is called once per failed attempt.
struct ReconnectBackoff {
    let policy: MQTTReconnectPolicy
    /// Consecutive failures since the last stable connection.
    private(set) var failures = 0

    init(policy: MQTTReconnectPolicy) { self.policy = policy }

    /// Ceiling for the current failure count: `min(maxDelay, initialDelay · 2^failures)`.
    var ceiling: Duration {
        let initial = Double(policy.initialDelay.milliseconds)
        let cap = Double(policy.maxDelay.milliseconds)
        let exponent = Double(min(failures, 30))
        return .milliseconds(Int64(min(cap, initial * pow2(exponent))))
    }

    /// Records a failure and returns how long to wait before the next attempt.
    mutating func nextDelay<R: RandomNumberGenerator>(using rng: inout R) -> Duration {
        let hi = max(1, ceiling.milliseconds)
        let lo = max(1, min(hi, policy.initialDelay.milliseconds / 4))
        failures += 1
        return .milliseconds(Int64.random(in: lo...hi, using: &rng))
    }

    mutating func nextDelay() -> Duration {
        var g = SystemRandomNumberGenerator()
        return nextDelay(using: &g)
    }

    /// A connection stayed up long enough: start again from `initialDelay`.
    mutating func reset() { failures = 0 }

    private func pow2(_ e: Double) -> Double {
        var r = 1.0
        var i = 0.0
        while i < e { r *= 2; i += 1 }
        return r
    }
}
