/// Turns a chip's 6D reports (`IMUSample.Flags.chipOrientation` with `chipFace`, one per sample
/// that carried LSM6DSOX D6D_SRC bit D6D_IA) into the software detector's `orientation` event,
/// `fromChip`, after the same dwell as `OrientationDetector`.
///
/// The chip raises D6D_IA once per change of position (latched, cleared by the per-edge read) and
/// reports the new position in the same byte. A reported face that differs from the face held
/// becomes the candidate from that sample's time; when no other report comes for `dwell` s the
/// face changes (one event, `onset` the report's time, `previousFace` the face held, `.unknown`
/// the first time). A report of the held face, or of no single face (`.unknown`: the board
/// between two cones), cancels the candidate, like the software detector's dead band.
/// The faces are on the axes the chip reports: the agent lets the chip decide only with an
/// identity `source.mount` (docs/events.md), so those are the board axes. Value type, no allocation.
public struct ChipOrientationGate: Sendable, BitwiseCopyable {
    /// Seconds a new face must be held before it is reported (`OrientationConfiguration.dwell`).
    public var dwell: Double
    /// The face held now (`.unknown` until the first change).
    public var face: DeviceFace { held.face }
    private var held = FaceDwell()

    public init(dwell: Double) { self.dwell = dwell }

    /// One sample at `time` (s); `reported`: the face the chip reported with it (`IMUSample.Flags.chipFace`),
    /// `nil` when the sample carried no 6D report.
    public mutating func update(reported: DeviceFace?, time: Double, emit: (MotionEvent) -> Void) {
        guard var e = held.observe(reported, time: time, dwell: dwell) else { return }
        e.fromChip = true
        emit(e)
    }
}
