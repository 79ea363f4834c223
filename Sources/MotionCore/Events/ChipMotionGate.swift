/// Turns a chip's motion-interrupt flags (one per sample, `IMUSample.Flags.chipMotion`) into
/// `motion` events with the software detector's episode semantics: the first flagged sample
/// after at least `quietDuration` s without one (or the first ever) fires one `motion` event
/// (`fromChip`, onset = decision time); flags within an episode fire nothing.
///
/// A real chip raises its motion interrupt on every accelerometer sample above its threshold
/// once its duration counter is full, so an episode is a stream of flags; `quietDuration` is the
/// any-motion detector's `stationaryDuration`, so both re-arm alike.
public struct ChipMotionGate: Sendable, BitwiseCopyable {
    /// Seconds without a flag that end an episode.
    public var quietDuration: Double
    private var lastFlag = -Double.infinity

    public init(quietDuration: Double) { self.quietDuration = quietDuration }

    /// Whether a chip motion episode is running at `time` (a flag within `quietDuration`).
    public func isMoving(at time: Double) -> Bool { time - lastFlag < quietDuration }

    /// One sample at `time` (s), `flagged` if the chip reported motion with it.
    public mutating func update(flagged: Bool, time: Double, emit: (MotionEvent) -> Void) {
        guard flagged else { return }
        if !isMoving(at: time) {
            var e = MotionEvent(type: .motion, time: time, onset: time)
            e.fromChip = true
            emit(e)
        }
        lastFlag = time
    }
}
