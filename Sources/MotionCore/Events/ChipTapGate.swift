/// Turns a chip's tap flags (`IMUSample.Flags.chipTap`, `.chipDoubleTap`) into the software tap
/// detector's `tap` and `double_tap` events, `fromChip`, decided at the sample that carried them
/// (onset = decision time: the chip says when it recognised the tap, not when the impulse began).
///
/// The chip latches one recognised tap until its source register is read, so each flag is one
/// tap; a sample with both flags gives `tap` then `double_tap` (the software detector also
/// reports the second tap of a pair as `double_tap`).
public struct ChipTapGate: Sendable, BitwiseCopyable {
    public init() {}

    /// One sample at `time` (s) with the chip's tap flags.
    public func update(tap: Bool, doubleTap: Bool, time: Double, emit: (MotionEvent) -> Void) {
        if tap {
            var e = MotionEvent(type: .tap, time: time, onset: time)
            e.fromChip = true
            emit(e)
        }
        if doubleTap {
            var e = MotionEvent(type: .doubleTap, time: time, onset: time)
            e.fromChip = true
            emit(e)
        }
    }
}
