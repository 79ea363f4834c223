/// Which face of the board points up: Core Motion's `UIDeviceOrientation` names on the board
/// axes (the samples' frame, after `source.mount`). Picture the board as a phone lying face up
/// with its top edge away from you: +x to the right, +y to the top edge, +z out of the face.
///
/// | face | axis pointing up (specific force ≈ +1 g on it) |
/// |---|---|
/// | `faceUp` | +z |
/// | `faceDown` | −z |
/// | `portrait` | +y (top edge up) |
/// | `portraitUpsideDown` | −y |
/// | `landscapeLeft` | +x (turned a quarter counter-clockwise from portrait: the right edge up) |
/// | `landscapeRight` | −x (the left edge up) |
///
/// These are the LSM6DSOX D6D_SRC bits XH/XL/YH/YL/ZH/ZL (the axis reading above or below the
/// threshold), named.
@frozen
public enum DeviceFace: UInt8, Sendable, BitwiseCopyable, Hashable, CaseIterable {
    /// Not yet known (before the first face was held for the dwell).
    case unknown
    case faceUp, faceDown, portrait, portraitUpsideDown, landscapeLeft, landscapeRight

    /// The wire name (`events/motion` `face` and `previous`).
    public var name: String {
        switch self {
        case .unknown: "unknown"
        case .faceUp: "face_up"
        case .faceDown: "face_down"
        case .portrait: "portrait"
        case .portraitUpsideDown: "portrait_upside_down"
        case .landscapeLeft: "landscape_left"
        case .landscapeRight: "landscape_right"
        }
    }
}

/// Settings of `OrientationDetector`.
public struct OrientationConfiguration: Sendable, Equatable, BitwiseCopyable {
    /// Degrees, the LSM6DSOX's SIXD_THS choices 50, 60, 70 or 80: a face is taken when gravity
    /// rises more than this above the plane normal to its axis, i.e. the axis reads more than
    /// sin(threshold) g — gravity within 90° − threshold of the axis (60° → within 30°).
    public var threshold = 60.0
    /// Seconds gravity must stay inside a new face's cone before the face changes.
    public var dwell = 0.5
    public init() {}
}

/// The 6D orientation: which of the six faces (`DeviceFace`) points up.
///
/// Gravity is the specific force (m/s², board axes, +9.81 on the axis pointing up at rest)
/// low-passed per axis (second-order Butterworth, `cutoff` Hz), in g, not normalised (as the
/// chip compares its axis readings, so a falling board has no face). A face is a candidate when
/// its axis reads more than sin(`threshold`) g; with a threshold ≥ 45° at most one axis can, so
/// the candidate is unique. The face changes to a candidate that stays the candidate for
/// `dwell` s; while no face is a candidate (between two cones: 60° leaves 30° between the
/// cones of two neighbouring faces) nothing changes — that dead band is the hysteresis: a board
/// hovering at a cone's edge keeps its face. One `orientation` event per change (the first
/// with `previousFace` `.unknown`), `onset` when the new face became the candidate.
/// Value type, no allocation.
public struct OrientationDetector: Sendable {
    public let configuration: OrientationConfiguration
    private var fx: Biquad, fy: Biquad, fz: Biquad
    private var primed = false
    private let level: Double
    /// The face held now (`.unknown` until the first one has been held for the dwell).
    public var face: DeviceFace { held.face }
    private var held = FaceDwell()

    /// `sampleRate` and `cutoff` in Hz (the cutoff is clamped below Nyquist).
    public init(configuration: OrientationConfiguration = OrientationConfiguration(), sampleRate: Double, cutoff: Double = 2) {
        self.configuration = configuration
        let c = Swift.min(cutoff, 0.4 * sampleRate)
        fx = .lowPass(cutoff: c, rate: sampleRate)
        fy = fx
        fz = fx
        level = (configuration.threshold * .pi / 180).sin
    }

    /// The face whose axis reads more than sin(threshold) g in `gravity` (g, board axes), or
    /// `.unknown` when none does.
    public func candidate(forGravity g: Vector3) -> DeviceFace {
        if g.z > level { return .faceUp }
        if -g.z > level { return .faceDown }
        if g.y > level { return .portrait }
        if -g.y > level { return .portraitUpsideDown }
        if g.x > level { return .landscapeLeft }
        if -g.x > level { return .landscapeRight }
        return .unknown
    }

    /// Feeds one sample (specific force, m/s², board axes) at `time` (s).
    public mutating func update(specificForce f: Vector3, time: Double, emit: (MotionEvent) -> Void) {
        if !primed {
            fx.prime(f.x); fy.prime(f.y); fz.prime(f.z)
            primed = true
        }
        let g = Vector3(fx(f.x), fy(f.y), fz(f.z)) / standardGravity
        if let e = held.observe(candidate(forGravity: g), time: time, dwell: configuration.dwell) { emit(e) }
    }
}
