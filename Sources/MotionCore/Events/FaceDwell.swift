/// The dwell both 6D paths share (`OrientationDetector` on gravity, `ChipOrientationGate` on
/// the chip's D6D_SRC reports): a face other than the one held becomes the candidate from the
/// time it is first seen, and becomes the held face once it has stayed the candidate for
/// `dwell` s. Seeing the held face, or no single face (`.unknown`, between two cones), cancels
/// the candidate — the dead band that is the hysteresis. Value type, no allocation.
struct FaceDwell: Sendable, BitwiseCopyable {
    /// The face held now (`.unknown` until the first one has been held for the dwell).
    private(set) var face = DeviceFace.unknown
    private var candidate = DeviceFace.unknown
    private var candidateSince = Double.nan

    /// `seen`: the face observed at `time` (s), or `nil` when nothing was observed (a sample
    /// without a chip report: the candidate stands). Returns the `orientation` event (`onset`
    /// when the candidate was first seen, `previousFace` the face held before) when the face
    /// changes.
    mutating func observe(_ seen: DeviceFace?, time: Double, dwell: Double) -> MotionEvent? {
        if let seen {
            if seen == .unknown || seen == face {
                candidate = .unknown
                candidateSince = .nan
                return nil
            }
            if seen != candidate {
                candidate = seen
                candidateSince = time
            }
        }
        guard candidate != .unknown, time - candidateSince >= dwell - 1e-9 else { return nil }
        var e = MotionEvent(type: .orientation, time: time, onset: candidateSince)
        e.face = candidate
        e.previousFace = face
        face = candidate
        candidate = .unknown
        candidateSince = .nan
        return e
    }
}
