/// The rate a source really delivers, measured between two moments of the internal grid: what
/// the activity detector (per decision) and the pedometer (per second) use to tell a low-rate
/// source from one interpolated up to their internal rate. Value type, no allocation.
public struct SourceRateMeter: Sendable {
    /// Below this source rate, Hz, the detectors switch to their low-rate variants (the activity
    /// detector's model, the pedometer's step rules): 16 ≈ √(10 × 25), between the 10 Hz of a
    /// low-power mode and the 25 Hz the main models are fitted at. The one default of
    /// `ActivityConfiguration.lowRateModelBelow` and `PedometerConfiguration.lowRateBelow`.
    public static let lowRateBelow = 16.0

    private var samples = 0
    private var since = Double.nan

    public init() {}

    /// One source sample arrived.
    public mutating func count() { samples += 1 }

    /// Forgets the interval in progress (a gap in the source, a reset).
    public mutating func restart() {
        samples = 0
        since = .nan
    }

    /// Starts an interval at internal time `t`, s, unless one runs.
    public mutating func start(at t: Double) {
        guard since.isNaN else { return }
        since = t
        samples = 0
    }

    /// Seconds since the interval started (0 when none runs).
    public func elapsed(at t: Double) -> Double { since.isNaN ? 0 : t - since }

    /// The source rate over the interval, Hz (infinite for an empty span), and a new interval from `t`.
    public mutating func take(at t: Double) -> Double {
        let span = t - since
        let rate = span > 0 ? Double(samples) / span : .infinity
        since = t
        samples = 0
        return rate
    }
}
