import MotionCore

/// One part of a scenario timeline: a motion held for `duration` seconds.
public struct SimulationSegment: Sendable, Hashable {
    public var motion: SimulatedMotion
    /// Seconds; the last segment of a timeline continues past its duration.
    public var duration: Double

    public init(_ motion: SimulatedMotion, duration: Double = .infinity) {
        self.motion = motion
        self.duration = duration
    }
}

/// A scripted timeline of motions with known ground truth, for `SimulatedIMU`.
///
/// Each segment runs on its own local clock (seconds since the segment began). At every
/// boundary the new motion fades in over `transition` seconds: the attitude is slerped with a C²
/// smooth step and the linear acceleration cross-faded, so the gyroscope stays continuous. The
/// truth label switches at the boundary; steps are counted up to the middle of the transition
/// for the old segment and from there on for the new one. After the last segment's duration the
/// last motion simply continues.
public struct SimulationScenario: Sendable, Hashable {
    /// Identity, e.g. `walking` or `walking+running+stationary` (published as `simulator:<name>`).
    public var name: String
    /// The timeline, in order.
    public let segments: [SimulationSegment]
    /// Blend time at each boundary, s.
    public let transition: Double
    /// Start time of each segment, s since the simulation start.
    let starts: [Double]

    public init(name: String, segments: [SimulationSegment], transition: Double = 2) {
        precondition(!segments.isEmpty, "a simulation scenario needs at least one segment")
        self.name = name
        self.segments = segments
        self.transition = Swift.max(0, transition)
        var starts: [Double] = []
        var t = 0.0
        for s in segments {
            starts.append(t)
            t += s.duration
        }
        self.starts = starts
    }

    /// A scenario of one open-ended motion.
    public init(name: String, motion: SimulatedMotion) {
        self.init(name: name, segments: [SimulationSegment(motion)])
    }

    /// Sum of the segment durations (infinite for an open-ended last segment).
    public var duration: Double { segments.reduce(0) { $0 + $1.duration } }

    // MARK: Built-in scenarios

    /// The names `init?(named:)` accepts, in presentation order.
    public static let names = ["stationary", "rotation", "walking", "running", "cycling", "automotive"]

    /// Device lying still, roll 10°, pitch −5°, yaw 30°.
    public static let stationary = SimulationScenario(name: "stationary", motion: .stationary(StationaryMotion()))
    /// Device turned in the hand, multi-axis, with 6 s still periods every 30 s.
    public static let rotation = SimulationScenario(name: "rotation", motion: .rotation(RotationMotion()))
    /// Walking at 1.9 steps/s, phone in the hand.
    public static let walking = walking()
    /// Running at 2.8 steps/s.
    public static let running = running()
    /// Cycling at 80 rpm, phone in the trouser pocket.
    public static let cycling = SimulationScenario(name: "cycling", motion: .cycling(CyclingMotion()))
    /// Urban driving with stops, phone in a dashboard holder.
    public static let automotive = SimulationScenario(name: "automotive", motion: .automotive(AutomotiveMotion()))

    /// Stationary at a chosen attitude (sensor → ENU).
    public static func stationary(attitude: Attitude) -> SimulationScenario {
        SimulationScenario(name: "stationary", motion: .stationary(StationaryMotion(attitude: attitude)))
    }

    /// Walking with a chosen cadence (steps/s) and vertical bounce (g).
    public static func walking(cadence: Double = 1.9, bounce: Double = 0.25) -> SimulationScenario {
        SimulationScenario(name: "walking", motion: .gait(.walking(cadence: cadence, bounce: bounce)))
    }

    /// Running with a chosen cadence (steps/s) and vertical bounce (g, fundamental).
    public static func running(cadence: Double = 2.8, bounce: Double = 0.8) -> SimulationScenario {
        SimulationScenario(name: "running", motion: .gait(.running(cadence: cadence, bounce: bounce)))
    }

    /// Chains scenarios, each held for its duration in seconds (e.g. walking 60 s → running
    /// 60 s → stationary 60 s). A multi-segment part contributes its own segments, cut to the
    /// given duration.
    public static func sequence(_ parts: [(SimulationScenario, Double)], transition: Double = 2) -> SimulationScenario {
        var segments: [SimulationSegment] = []
        for (scenario, duration) in parts {
            var remaining = duration
            for s in scenario.segments where remaining > 0 {
                let d = Swift.min(s.duration, remaining)
                segments.append(SimulationSegment(s.motion, duration: d))
                remaining -= d
            }
        }
        let name = parts.map(\.0.name).joined(separator: "+")
        return SimulationScenario(name: name, segments: segments, transition: transition)
    }

    /// A built-in scenario by name (`walking`), or a timeline `walking:60,running:60,stationary`
    /// (seconds; a missing duration means open-ended). `nil` for an unknown name or bad number.
    public init?(named text: String) {
        func builtIn(_ name: Substring) -> SimulationScenario? {
            switch name.trimmingSpaces {
            case "stationary": .stationary
            case "rotation": .rotation
            case "walking": .walking
            case "running": .running
            case "cycling": .cycling
            case "automotive": .automotive
            default: nil
            }
        }
        let parts = text.split(separator: ",")
        if parts.count == 1, !text.contains(":") {
            guard let s = builtIn(parts[0]) else { return nil }
            self = s
            return
        }
        var timeline: [(SimulationScenario, Double)] = []
        for part in parts {
            let fields = part.split(separator: ":", maxSplits: 1)
            guard let s = builtIn(fields[0]) else { return nil }
            var duration = Double.infinity
            if fields.count == 2 {
                guard let d = Double(String(fields[1].trimmingSpaces)), d > 0 else { return nil }
                duration = d
            }
            timeline.append((s, duration))
        }
        guard !timeline.isEmpty else { return nil }
        self = .sequence(timeline)
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return s
    }
}

// MARK: Evaluation

extension SimulationScenario {
    /// The motion state at `t` seconds since the start, without angular velocity.
    struct Kinematics {
        var attitude: Quaternion
        var linearAcceleration: Vector3
        var activity: SimulatedActivity
        var steps: Int
        var segment: Int
    }

    /// Index of the segment active at `t`.
    func segmentIndex(at t: Double) -> Int {
        var k = 0
        var i = 1
        while i < starts.count, starts[i] <= t {
            k = i
            i += 1
        }
        return k
    }

    // The segments are read through `withUnsafeBufferPointer`, whose subscript borrows the
    // element in place: `segments[k]` returns a copy, and a `SimulationSegment` is not trivially
    // copyable (the automotive motion holds arrays), so each such read ran its outlined copy (a
    // switch over the motions, retains and releases): four per simulated sample.

    /// Attitude only (cheap enough for central differences).
    func attitude(at t: Double) -> Quaternion {
        let k = segmentIndex(at: t)
        let local = t - starts[k]
        return segments.withUnsafeBufferPointer { segments in
            let current = segments[k].motion.attitude(at: local)
            guard k > 0, local < transition else { return current }
            let s = smootherStep(local / transition)
            let previous = segments[k - 1].motion.attitude(at: t - starts[k - 1])
            return Quaternion.slerp(previous, current, s)
        }
    }

    func kinematics(at t: Double) -> Kinematics {
        let k = segmentIndex(at: t)
        let local = t - starts[k]
        return segments.withUnsafeBufferPointer { segments in
            var q = segments[k].motion.attitude(at: local)
            var a = segments[k].motion.linearAcceleration(at: local)
            if k > 0, local < transition {
                let s = smootherStep(local / transition)
                let previousLocal = t - starts[k - 1]
                q = Quaternion.slerp(segments[k - 1].motion.attitude(at: previousLocal), q, s)
                a = segments[k - 1].motion.linearAcceleration(at: previousLocal) * (1 - s) + a * s
            }
            return Kinematics(attitude: q, linearAcceleration: a, activity: segments[k].motion.activity,
                              steps: steps(at: t, activeSegment: k, of: segments), segment: k)
        }
    }

    /// Steps completed by `t`: each gait segment counts over its own local window
    /// [transition/2 (0 for the first), duration + transition/2 (∞ for the last)].
    private func steps(at t: Double, activeSegment k: Int, of segments: UnsafeBufferPointer<SimulationSegment>) -> Int {
        var total = 0
        let half = transition / 2
        var j = 0
        while j <= k {
            if case .gait(let gait) = segments[j].motion {
                let from = j == 0 ? 0 : half
                let until = j == segments.count - 1 ? Double.infinity : segments[j].duration + half
                let end = Swift.min(t - starts[j], until)
                if end > from { total += gait.steps(at: end) - gait.steps(at: from) }
            }
            j += 1
        }
        return total
    }
}
