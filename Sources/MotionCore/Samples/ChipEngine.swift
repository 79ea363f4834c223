/// One of a chip's own interrupt engines that EdgeMotion can hand an event to (docs/chip-engines.md):
/// the names of `events.chip_engines`, and the one home of which `IMUSample.Flags` each engine raises
/// (used by the agent's config resolution, `IMUChipSettings.requestedChipEngines` and the drivers).
public enum ChipEngine: String, Sendable, Equatable, CaseIterable, Comparable {
    case motion, freeFall = "free_fall", tap, orientation

    public static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }

    /// The sample flags this engine raises: `motion` `.chipMotion`, `free_fall` `.chipFreeFall`,
    /// `tap` `.chipTap` and `.chipDoubleTap` (one engine decides both), `orientation` `.chipOrientation`.
    public var flags: IMUSample.Flags {
        switch self {
        case .motion: .chipMotion
        case .freeFall: .chipFreeFall
        case .tap: [.chipTap, .chipDoubleTap]
        case .orientation: .chipOrientation
        }
    }
}
