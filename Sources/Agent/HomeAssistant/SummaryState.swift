/// What the `summary` topic carries: a slow, human-scale view of the device for Home Assistant.
public struct SummaryState: Sendable, Equatable {
    /// Core Motion roll, degrees (rotation about the device's y axis).
    public var rollDegrees: Double
    /// Core Motion pitch, degrees (rotation about the device's x axis).
    public var pitchDegrees: Double
    /// Degrees clockwise from north, 0…360; `nil` without a north-referenced frame.
    public var headingDegrees: Double?
    /// The device moved (user acceleration or rotation above the thresholds) since the last summary.
    public var moving: Bool
    /// UTC microseconds since the Unix epoch of the newest motion state summarised.
    public var timeUTCMicroseconds: Int64

    /// Whether `self` differs enough from `previous` to be worth a message.
    public func differs(from previous: SummaryState, deadbandDegrees: Double) -> Bool {
        if moving != previous.moving { return true }
        if abs(rollDegrees - previous.rollDegrees) > deadbandDegrees { return true }
        if abs(pitchDegrees - previous.pitchDegrees) > deadbandDegrees { return true }
        switch (headingDegrees, previous.headingDegrees) {
        case (nil, nil): return false
        case (let a?, let b?):
            let d = abs(a - b).truncatingRemainder(dividingBy: 360)
            return min(d, 360 - d) > deadbandDegrees
        default: return true
        }
    }
}
