import MotionCore

/// Scripted recordings for the motion-event detectors, with the truth written by hand: when each
/// physical event happens. Each scenario is a sequence of samples (specific force in m/s² and
/// rotation rate in rad/s, sensor frame, +9.81 on the up axis at rest) with a little sensor
/// noise, and the list of true events. Deterministic for a given seed.
///
/// - `door`: a garage door (sensor z up when closed) that opens by tipping 90° about x in 2 s,
///   stays open, and closes again, repeatedly; truth: `tilt_threshold` on/off at the moment the
///   tilt crosses 60° going up and 20° coming down (the door threshold of docs/events.md).
/// - `washer`: idle, a wash (tumbling, 1 Hz bumps of 0.3 m/s², not a vibration), a 20 Hz spin at
///   1.5 m/s² amplitude for 60 s, idle; truth: `vibration_start`/`vibration_stop` at the spin's
///   start and end, and `vibration_changed` at both (the level rises and falls far more than the
///   4× in energy that counts as a change).
/// - `drop`: a box lifted and dropped from a known height (free fall t = √(2h/g)), landing with a
///   10 ms impact of 8 g; truth: `free_fall` at the release, `shock` at the impact.
/// - `tap`: a board on a table tapped (300 Hz ring, 20 ms decay, 3–8 g) singly and in pairs
///   0.3 s apart; truth: `tap` for each, `double_tap` for each pair.
/// - `fall`: a person standing (z up), falling sideways in 0.6 s, hitting the ground with 4 g,
///   lying still; and walking in between; truth: `fall` at the impact.
/// - `carry`: a crate at rest, picked up and carried for 2, 8, 3, 12, 1 and 6 s (a 1.5 Hz sway of
///   1.5 m/s² along x and a 0.3 rad/s turn about z a quarter period later, so at every instant one of
///   them is well above the any-motion thresholds), set down for 30 s each time; truth: `motion`
///   when each carry begins, `significant_motion` when a carry has lasted 5 s (the 8, 12 and 6 s
///   ones), `stationary` 2 s after each set-down (the documented `significant_s` and `stationary_s`).
/// - `tamper`: a crate at rest, armed at 10 s (`armTamperAt`), its lid prised open slowly (0° → 10°
///   over 60 s from 20 s: no motion, only tilt), held open, eased shut (60 s), then at rest and
///   carried off for 3 s at 200 s; truth: `tamper` at the 5° crossing (50 s) and when the carry
///   begins (the detector re-arms once the pose is back within 5° and still).
/// - `turn`: a board lying face up, turned a quarter turn about x in 1 s every 10 s (portrait,
///   face down, portrait upside down, face up), then about y (landscape left, face up, landscape
///   right, face up); truth: `orientation` when gravity enters the new face's 60° cone (its axis
///   reads sin 60° g: 0.608 s into each turn, θ = 90°·(1 − cos πt)/2 reaching 60°), and the first
///   face at 0 s (`events.orientation: true`).
/// - `quiet`: a device at rest with sensor noise and slow thermal drift (for false events per hour).
public struct EventScenario: Sendable {
    /// One true event: its type name (`tap`, `shock`, …) and when it physically happens, s.
    public struct Truth: Sendable, Hashable {
        public var type: String
        public var time: Double
    }

    public static let names = ["door", "washer", "drop", "tap", "fall", "carry", "tamper", "turn", "quiet"]

    public let name: String
    public let rate: Double
    /// Samples, in time order (`timestampNanos` from 0).
    public private(set) var samples: [IMUSample] = []
    public private(set) var truth: [Truth] = []
    /// When tamper detection is armed (s, as `cmd/events arm_tamper` would): `tamper` only; else nil.
    public private(set) var armTamperAt: Double?
    public var duration: Double { Double(samples.count) / rate }

    private var random: SimulatorRandom
    private var time = 0.0

    /// `nil` for an unknown name.
    public init?(named name: String, rate: Double = 400, seed: UInt64 = 1) {
        guard Self.names.contains(name) else { return nil }
        self.name = name
        self.rate = rate
        random = SimulatorRandom(seed: seed)
        switch name {
        case "door": door()
        case "washer": washer()
        case "drop": drop()
        case "tap": taps()
        case "fall": fall()
        case "carry": carry()
        case "tamper": tamper()
        case "turn": turn()
        default: run(3600)
        }
    }

    private static let g = standardGravity

    private mutating func run(_ duration: Double, force: (Double) -> Vector3 = { _ in Vector3(0, 0, g) },
                              rotation: (Double) -> Vector3 = { _ in .zero }) {
        let n = Int((duration * rate).rounded())
        samples.reserveCapacity(samples.count + n)
        for i in 0..<n {
            let t = Double(i) / rate
            let noise = Vector3(random.normal() * 0.02, random.normal() * 0.02, random.normal() * 0.02)
            let gyroNoise = Vector3(random.normal() * 0.002, random.normal() * 0.002, random.normal() * 0.002)
            samples.append(IMUSample(timestampNanos: UInt64((time * 1e9).rounded()), sequence: UInt64(samples.count),
                                     specificForce: force(t) + noise, rotationRate: rotation(t) + gyroNoise,
                                     contents: .inertial))
            time += 1 / rate
        }
    }

    private mutating func mark(_ type: String, at t: Double) { truth.append(Truth(type: type, time: t)) }

    /// Tilted by `degrees` about x: g·(0, sin θ, cos θ).
    private static func tilted(_ degrees: Double) -> Vector3 {
        Vector3(0, g * degrees.radians.sin, g * degrees.radians.cos)
    }

    private mutating func door() {
        for cycle in 0..<10 {
            run(20 + Double(cycle))
            // Smooth 0 → 90° in 2 s: θ(t) = 90·(1 − cos(πt/2))/2; rate dθ/dt.
            let start = time
            run(2, force: { t in Self.tilted(90 * (1 - (Double.pi * t / 2).cos) / 2) },
                rotation: { t in Vector3((90.0 * .pi / 4 * (Double.pi * t / 2).sin).radians, 0, 0) })
            // θ = 60° at (1 − cos(πt/2))/2 = 2/3 → t = (2/π)·acos(−1/3).
            mark("tilt_threshold_on", at: start + 2 / Double.pi * (-1.0 / 3).acos)
            run(30 + Double(cycle)) { _ in Self.tilted(90) }
            let down = time
            run(2, force: { t in Self.tilted(90 * (1 + (Double.pi * t / 2).cos) / 2) },
                rotation: { t in Vector3(-(90.0 * .pi / 4 * (Double.pi * t / 2).sin).radians, 0, 0) })
            // θ = 20° at (1 + cos(πt/2))/2 = 2/9 → t = (2/π)·acos(−5/9).
            mark("tilt_threshold_off", at: down + 2 / Double.pi * (-5.0 / 9).acos)
        }
        run(20)
    }

    private mutating func washer() {
        for _ in 0..<3 {
            run(60)
            // Wash: the drum tumbles the load, 1 Hz bumps of 0.3 m/s² (below 10 Hz: not vibration).
            run(120) { t in Vector3(0.3 * (2 * .pi * t).sin, 0, Self.g + 0.2 * (2 * .pi * 2 * t).sin) }
            mark("vibration_start", at: time)
            mark("vibration_changed", at: time)
            run(60) { t in Vector3(1.5 * (2 * .pi * 20 * t).sin, 1.0 * (2 * .pi * 20 * t + 1).sin, Self.g) }
            mark("vibration_stop", at: time)
            mark("vibration_changed", at: time)
        }
        run(60)
    }

    private mutating func drop() {
        for (i, height) in [0.3, 0.6, 0.75, 1.0, 1.5].enumerated() {
            run(20)
            // Lifted in 1 s (a gentle push up and stop), held 2 s.
            run(1) { t in Vector3(0, 0, Self.g + 2 * (2 * .pi * t).sin) }
            run(2 + Double(i) * 0.1)
            mark("free_fall", at: time)
            run((2 * height / Self.g).squareRoot()) { _ in .zero }
            mark("shock", at: time)
            run(0.01) { _ in Vector3(0.5 * Self.g, 0, 8 * Self.g) }
            run(20)
        }
    }

    private mutating func taps() {
        func ring(_ amplitude: Double) -> (Double) -> Vector3 {
            { t in Vector3(0.2 * amplitude * Self.g * (2 * .pi * 300 * t).sin * (-t / 0.02).exp, 0,
                           Self.g + amplitude * Self.g * (2 * .pi * 300 * t).sin * (-t / 0.02).exp) }
        }
        for i in 0..<20 {
            run(5 + Double(i % 3))
            let amplitude = 3 + Double(i % 6)
            mark("tap", at: time)
            if i % 4 == 3 {
                run(0.3, force: ring(amplitude))
                mark("tap", at: time)
                mark("double_tap", at: time)
                run(1, force: ring(amplitude))
            } else {
                run(1, force: ring(amplitude))
            }
        }
        run(10)
    }

    private mutating func carry() {
        for seconds in [2.0, 8, 3, 12, 1, 6] {
            run(30)
            mark("motion", at: time)
            if seconds >= 5 { mark("significant_motion", at: time + 5) }
            carried(seconds)
            mark("stationary", at: time + 2)
        }
        run(30)
    }

    private mutating func tamper() {
        armTamperAt = 10
        run(20)
        // The lid: 0° → 10° at 1/6 °/s (5° at 30 s in), i.e. 0.003 rad/s, far below any-motion.
        let creep = (10.0 / 60).radians
        let start = time
        run(60, force: { t in Self.tilted(10 * t / 60) }, rotation: { _ in Vector3(creep, 0, 0) })
        mark("tamper", at: start + 30)
        run(20) { _ in Self.tilted(10) }
        run(60, force: { t in Self.tilted(10 - 10 * t / 60) }, rotation: { _ in Vector3(-creep, 0, 0) })
        run(40)
        mark("tamper", at: time)
        carried(3)
        run(30)
    }

    /// Carried for `seconds`: a 1.5 Hz sway of 1.5 m/s² along x and a 0.3 rad/s turn about z a
    /// quarter period later (never still: one of them is always above the any-motion thresholds).
    private mutating func carried(_ seconds: Double) {
        run(seconds, force: { t in Vector3(1.5 * (2 * .pi * 1.5 * t).sin, 0, Self.g) },
            rotation: { t in Vector3(0, 0, 0.3 * (2 * .pi * 1.5 * t).cos) })
    }

    private mutating func turn() {
        mark("orientation", at: 0)
        // Gravity's direction in the board frame after turning θ about x (y, z) or about y (x, z).
        func aboutX(_ theta: Double) -> Vector3 { Vector3(0, Self.g * theta.radians.sin, Self.g * theta.radians.cos) }
        func aboutY(_ theta: Double) -> Vector3 { Vector3(Self.g * theta.radians.sin, 0, Self.g * theta.radians.cos) }
        let cone = (-1.0 / 3).acos / Double.pi       // (1 − cos πt)/2 = 2/3: 60° of the 90°
        for (about, from, to) in [(0, 0.0, 90.0), (0, 90, 180), (0, 180, 270), (0, 270, 360),
                                  (1, 0, 90), (1, 90, 0), (1, 0, -90), (1, -90, 0)] {
            let pose: (Double) -> Vector3 = about == 0 ? aboutX : aboutY
            run(10) { _ in pose(from) }
            let start = time
            let rate = (to - from) * .pi / 2              // dθ/dt peak, °/s: θ' = (to − from)·π/2·sin πt
            run(1, force: { t in pose(from + (to - from) * (1 - (Double.pi * t).cos) / 2) },
                rotation: { t in
                    let w = (rate * (Double.pi * t).sin).radians
                    return about == 0 ? Vector3(w, 0, 0) : Vector3(0, -w, 0)
                })
            mark("orientation", at: start + cone)
        }
        run(10)
    }

    private mutating func fall() {
        for i in 0..<6 {
            run(20)
            // Walking: 2 steps/s, ±0.4 g vertical bounce, small sway.
            run(30) { t in Vector3(0.1 * Self.g * (2 * .pi * t).sin, 0, Self.g * (1 + 0.4 * (2 * .pi * 2 * t).sin)) }
            run(5)
            // Falling sideways: toppling 90° about x in 0.6 s, half unloaded.
            let side = i % 2 == 0 ? 1.0 : -1.0
            run(0.6, force: { t in Self.tilted(side * 90 * t / 0.6) * 0.5 },
                rotation: { _ in Vector3(side * (90.0 / 0.6).radians, 0, 0) })
            mark("fall", at: time)
            run(0.05) { _ in Vector3(0, side * 4 * Self.g, 0) }
            run(20) { _ in Vector3(0, side * Self.g, 0) }
            // Getting up.
            run(1, force: { t in Self.tilted(side * 90 * (1 - t)) }, rotation: { _ in Vector3(-side * (90.0).radians, 0, 0) })
        }
        run(20)
    }
}
