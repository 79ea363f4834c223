/// Timestamps for samples read from a sensor FIFO in bursts (direct-I2C FIFO mode, every chip).
///
/// A FIFO burst carries no times: the reader only knows when it woke (`wakeNanos`, monotonic ns) and
/// how many frames the FIFO held. Each frame is stamped **backwards from the wake** by the measured
/// sample period `P`:
///
///     t_newest = wakeNanos                 (woken by the edge of the newest frame: its data-ready
///                                           pulse, or the watermark interrupt it raised)
///              = wakeNanos − P/2           (woken by a timer: the newest frame landed somewhere in
///                                           the last period, on average half a period ago)
///     t_i      = t_newest − (n − 1 − i)·s, i = 0 (oldest) … n − 1 (newest)
///     s        = min(P, (t_newest − t_previousNewest) / n)
///
/// `s` is `P` except when a wake came early relative to the previous one (jitter): then the burst is
/// squeezed into the time since the previous burst's newest frame, so timestamps never go backwards
/// or repeat.
///
/// **Measuring P.** The chip's sample clock is not exactly its nominal rate (MPU-6050: internal
/// oscillator ±1 % at 25 °C, up to ±5 % over temperature without an external clock), and over
/// minutes that error adds up to whole samples. Between two wakes exactly the frames read at the
/// later wake arrived (every read drains what it stamps), so over the last `window` bursts
///
///     P = (wake_newest − wake_oldest) / (frames read after the oldest wake)
///
/// A single burst would be too noisy: the wake jitter δ (scheduling, the I2C transfer itself) and
/// the ±1-frame quantisation of a count taken at an arbitrary phase both land on one interval. Over
/// a window of W bursts of n frames the error shrinks to about (2δ + P)/(W·n): with 16 bursts of 10
/// frames at 100 Hz and δ = 1 ms, about 20 µs on 10 ms (0.2 %), and the window still follows a
/// temperature drift within seconds. Estimates outside ±`tolerance` of the nominal period are not
/// believed (a stalled reader, a lost burst) and the window restarts; so does a FIFO overflow or any
/// discontinuity (`restart()`), since frames went missing between the wakes.
///
/// A value type, allocation-free after `init`; one per source, used by the acquisition thread.
public struct FIFOTimestamper: Sendable {
    /// What woke the reader.
    public enum Wake: Sendable {
        /// The data-ready edge of the newest frame read (its kernel timestamp).
        case dataReadyEdge
        /// A timer; the newest frame is on average half a period old.
        case timer
    }

    /// The period the chip was configured for, ns.
    public let nominalPeriodNanos: Double
    /// Relative deviation from the nominal period an estimate may have (0.1 = ±10 %).
    public let tolerance: Double
    /// Bursts the period is measured over.
    public let window: Int
    /// The measured sample period, ns (nominal until enough bursts were seen).
    public private(set) var periodNanos: Double
    /// Timestamp given to the newest frame of the previous burst.
    public private(set) var lastNewestNanos: UInt64?

    private var wakes: [UInt64]
    private var frames: [Int]
    private var head = 0
    private var count = 0

    public init(nominalPeriodNanos: Double, window: Int = 16, tolerance: Double = 0.1) {
        self.nominalPeriodNanos = nominalPeriodNanos
        self.tolerance = tolerance
        self.window = max(2, window)
        periodNanos = nominalPeriodNanos
        wakes = [UInt64](repeating: 0, count: self.window)
        frames = [Int](repeating: 0, count: self.window)
    }

    /// Frames went missing (overflow, reset): the period window starts again; the last timestamp
    /// stays, so later stamps still increase. The period keeps its last good estimate.
    public mutating func restart() {
        count = 0
        head = 0
    }

    /// Registers a burst of `n` frames read after waking at `wakeNanos`, updates the period and
    /// returns the oldest frame's timestamp and the spacing: frame i is at `first + i·spacing`.
    public mutating func stamp(frames n: Int, wakeNanos: UInt64, wake: Wake) -> (firstNanos: UInt64, spacingNanos: Double) {
        guard n > 0 else { return (wakeNanos, periodNanos) }
        measure(frames: n, wakeNanos: wakeNanos)
        var newest = wake == .timer ? wakeNanos &- UInt64(periodNanos / 2) : wakeNanos
        var spacing = periodNanos
        if let last = lastNewestNanos {
            if newest <= last {
                newest = last &+ UInt64((Double(n) * periodNanos).rounded())    // a clock anomaly: keep order
            } else {
                spacing = min(periodNanos, Double(newest - last) / Double(n))
            }
        }
        lastNewestNanos = newest
        let back = UInt64((Double(n - 1) * spacing).rounded())
        return (newest &- min(back, newest), spacing)
    }

    private mutating func measure(frames n: Int, wakeNanos: UInt64) {
        if count == window {                     // drop the oldest burst
            head = (head + 1) % window
            count -= 1
        }
        let slot = (head + count) % window
        wakes[slot] = wakeNanos
        frames[slot] = n
        count += 1
        guard count >= 2 else { return }
        let oldest = wakes[head]
        guard wakeNanos > oldest else { restart(); return }
        var total = 0
        for k in 1..<count { total += frames[(head + k) % window] }
        let estimate = Double(wakeNanos - oldest) / Double(total)
        if abs(estimate / nominalPeriodNanos - 1) <= tolerance {
            periodNanos = estimate
        } else {
            // Not believable (a stalled reader or a lost burst between the wakes): start again from here.
            head = slot
            count = 1
        }
    }
}
