/// Turns a chip's free-fall flags (`IMUSample.Flags.chipFreeFall`, one per sample) into the
/// software detector's `free_fall` event: sent when the fall ends (the first unflagged sample
/// after a run of flags), `fromChip`, with the fall's `duration` (s) and `dropHeight`
/// (m, g·t²/2), like `FreeFallDetector`'s.
///
/// The chip raises its flag once the magnitude has stayed below its threshold for its duration
/// counter (`minimumDuration`), and again on each sample while the fall goes on (latched, cleared
/// on read), so the fall began `minimumDuration` before the first flag and lasted to the last.
public struct ChipFreeFallGate: Sendable, BitwiseCopyable {
    /// Seconds the chip was programmed to wait before its first flag (its FF_DUR).
    public var minimumDuration: Double
    private var firstFlag = Double.nan
    private var lastFlag = Double.nan

    public init(minimumDuration: Double) { self.minimumDuration = minimumDuration }

    /// Whether a chip-flagged fall is running.
    public var isFalling: Bool { !firstFlag.isNaN }

    /// One sample at `time` (s), `flagged` if the chip reported free fall with it.
    public mutating func update(flagged: Bool, time: Double, emit: (MotionEvent) -> Void) {
        if flagged {
            if firstFlag.isNaN { firstFlag = time }
            lastFlag = time
            return
        }
        guard !firstFlag.isNaN else { return }
        let onset = firstFlag - minimumDuration
        let t = lastFlag - onset
        var e = MotionEvent(type: .freeFall, time: time, onset: onset)
        e.duration = t
        e.dropHeight = standardGravity * t * t / 2
        e.fromChip = true
        firstFlag = .nan
        lastFlag = .nan
        emit(e)
    }
}
