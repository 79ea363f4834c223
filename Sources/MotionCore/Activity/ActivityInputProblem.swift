/// Why the activity detector is withholding decisions: its input is not what it needs. Reported
/// by `ActivityDetector.inputProblem` (and cleared as soon as the input is usable again), so a
/// caller can warn instead of publishing nonsense.
@frozen
public enum ActivityInputProblem: Sendable, Hashable, BitwiseCopyable {
    /// The source delivers fewer samples per second than the detector needs (`measured` Hz, at
    /// least `required` Hz): configure the accelerometer's output data rate to 10 Hz or more.
    case rateTooLow(measured: Double, required: Double)
    /// The window's mean |f| (`meanMagnitude`, m/s²) is far from 9.81: the input is not raw
    /// specific force in m/s² (gravity already removed, e.g. user acceleration; or in g units).
    /// Feed raw accelerometer readings, gravity included, in m/s².
    case noGravity(meanMagnitude: Double)

    /// A stable identifier of the kind of problem (`rate_too_low`, `no_gravity`), for `health`
    /// and for telling a new problem from the same one re-measured.
    public var code: StaticString {
        switch self {
        case .rateTooLow: "rate_too_low"
        case .noGravity: "no_gravity"
        }
    }

    /// One sentence for logs and tools.
    public var message: String {
        switch self {
        case .rateTooLow(let measured, let required):
            "activity input at \(Self.format(measured)) Hz is below the \(Self.format(required)) Hz the detector needs; "
                + "raise the accelerometer's output data rate (decisions withheld)"
        case .noGravity(let m):
            "activity input has mean |f| \(Self.format(m)) m/s², not ≈ 9.81: it is not raw acceleration with gravity "
                + "in m/s² (gravity removed, or in g?); feed raw specific force (decisions withheld)"
        }
    }

    private static func format(_ x: Double) -> String {
        let r = (x * 10).rounded() / 10
        return "\(r)"
    }
}
