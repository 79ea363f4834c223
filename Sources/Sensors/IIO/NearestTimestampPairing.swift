/// Pairs the samples of a secondary IIO device (e.g. `lsm6dsox_gyro`) with those of the primary
/// one (`lsm6dsox_accel`) by nearest buffer timestamp, without allocating: the secondary's stream is
/// walked forward while its next sample is at least as near to the primary's timestamp as the one
/// held. When the secondary is slower (or its next sample is not there yet) its latest sample is
/// held and reused; when it is faster, its extra samples are skipped.
enum NearestTimestampPairing {
    /// Whether to replace the held secondary sample (timestamp `held`, nil when none yet) by the
    /// next one (`next`) for a primary sample at `target`. All times in ns on one clock; a secondary
    /// without timestamps passes 0 for `next` and so always advances (latest wins).
    @inline(__always)
    static func shouldAdvance(held: UInt64?, next: UInt64, target: UInt64) -> Bool {
        guard let held else { return true }
        if next <= target { return true }             // not after the target and newer than held
        if held >= target { return false }            // held is already at or past the target
        return next - target < target - held          // strictly nearer, though after the target
    }
}

extension NearestTimestampPairing {
    /// Walks a secondary stream forward for a primary sample at `target`: while `peek` offers a next
    /// timestamp (nil: nothing available now) that `shouldAdvance` accepts, `take` consumes it and it
    /// becomes `held`. Non-escaping closures: no allocation.
    @inline(__always)
    static func advance(held: inout UInt64?, to target: UInt64,
                        peek: () throws(SensorError) -> UInt64?, take: () -> Void) throws(SensorError) {
        while let next = try peek(), shouldAdvance(held: held, next: next, target: target) {
            take()
            held = next
        }
    }
}
