/// One probability per `ActivityClass` (indexed by its raw value), a fixed-size value.
@frozen
public struct ClassProbabilities: Sendable, Hashable, BitwiseCopyable {
    public var stationary = 0.0, walking = 0.0, running = 0.0, cycling = 0.0, automotive = 0.0, unknown = 0.0

    public init() {}

    @inlinable
    public subscript(c: ActivityClass) -> Double {
        get {
            switch c {
            case .stationary: stationary
            case .walking: walking
            case .running: running
            case .cycling: cycling
            case .automotive: automotive
            case .unknown: unknown
            }
        }
        set {
            switch c {
            case .stationary: stationary = newValue
            case .walking: walking = newValue
            case .running: running = newValue
            case .cycling: cycling = newValue
            case .automotive: automotive = newValue
            case .unknown: unknown = newValue
            }
        }
    }

    /// Adds `other` element-wise.
    @inlinable
    public mutating func add(_ o: ClassProbabilities) {
        stationary += o.stationary; walking += o.walking; running += o.running
        cycling += o.cycling; automotive += o.automotive; unknown += o.unknown
    }

    /// Multiplies every entry by `s`.
    @inlinable
    public mutating func scale(by s: Double) {
        stationary *= s; walking *= s; running *= s; cycling *= s; automotive *= s; unknown *= s
    }

    /// Rules `c` out: its probability goes to the other classes in proportion to theirs (the
    /// probabilities given that it is not `c`); when the others are all 0 they share it equally.
    @inlinable
    public mutating func exclude(_ c: ActivityClass) {
        let removed = self[c]
        self[c] = 0
        let rest = stationary + walking + running + cycling + automotive + unknown
        if rest > 1e-12 {
            scale(by: (rest + removed) / rest)
        } else {
            let share = removed / Double(ActivityClass.count - 1)
            for raw in 0..<ActivityClass.count where raw != c.rawValue { self[ActivityClass(rawValue: raw)!] = share }
        }
    }

    /// The most probable class and the margin over the runner-up.
    public var best: (ActivityClass, margin: Double) {
        var top = ActivityClass.unknown, p1 = -1.0, p2 = -1.0
        for raw in 0..<ActivityClass.count {
            let c = ActivityClass(rawValue: raw)!
            let p = self[c]
            if p > p1 { p2 = p1; p1 = p; top = c } else if p > p2 { p2 = p }
        }
        return (top, p1 - Swift.max(p2, 0))
    }
}
