#if canImport(Glibc)
import Glibc
#endif
@testable import MotionCore

/// Deterministic synthetic IMU signals for the activity and pedometer tests (SI units, sensor frame).
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
    /// Standard normal (Box–Muller).
    mutating func gaussian() -> Double {
        let u = max(uniform(), 1e-12), v = uniform()
        return (-2 * Glibc.log(u)).squareRoot() * Glibc.cos(2 * .pi * v)
    }
}

/// What the synthetic carrier is doing during one segment.
enum SyntheticMotion {
    /// Device at rest (hand or table), white noise of `noise` m/s² per axis.
    case stationary(noise: Double)
    /// Gait: `cadence` steps/s, vertical bounce `amplitude` m/s² with a stride (half-cadence) component
    /// (waist/pocket: walking ~3–4 m/s², running ~10–15 m/s²).
    case gait(cadence: Double, amplitude: Double)
    /// Phone on a car mount: broadband road vibration (std `vibration` m/s²) plus slow accelerating,
    /// braking and cornering (±0.4 m/s² over ~10–20 s).
    case vehicle(vibration: Double)
    /// The same vibration and gentle manoeuvres, with the device also turning about the vertical at
    /// `yawRate` rad/s plus `swing` · sin(2π · `swingFrequency` · t) rad/s (gravity stays put in the
    /// sensor frame: only the gyroscope sees it).
    case vehicleTurning(vibration: Double, yawRate: Double, swing: Double = 0, swingFrequency: Double = 0.5)
    /// The same vibration and gentle manoeuvres, with the device rocking about a horizontal axis at
    /// `rate` · sin(2π · `frequency` · t) rad/s: a rowing or pedalling body's pitch (gravity stays
    /// put in the sensor frame: only the gyroscope sees it).
    case vehiclePitching(vibration: Double, rate: Double, frequency: Double)
    /// A lift, or a device on a vibrating machine: broadband vibration (std `vibration` m/s²) along
    /// gravity and half of it along each horizontal axis (horizontal rms 0.71 of vertical), and every 20 s a ride: 0.8 m/s² up for 2 s, 6 s of
    /// travel, 0.8 m/s² down for 2 s, 10 s at a floor. Nothing moves it in the horizontal plane.
    case lift(vibration: Double)
    /// Phone in a thigh pocket while pedalling at `cadence` rev/s: the thigh swings ±0.45 rad.
    case pedalling(cadence: Double)
}

struct SyntheticRecording {
    var rate: Double
    var rng = SplitMix64(state: 42)
    var time = 0.0
    /// Gravity direction in the sensor frame (tilted, so no axis is special).
    let up = Vector3(0.3, -0.5, 0.81).normalized
    var phase = 0.0
    var vehiclePhase = 0.0

    init(rate: Double, seed: UInt64 = 42) {
        self.rate = rate
        rng = SplitMix64(state: seed)
    }

    /// Generates `duration` seconds of `motion`, calling `body(time, specificForce, rotationRate)`.
    mutating func generate(_ motion: SyntheticMotion, duration: Double,
                           _ body: (Double, Vector3, Vector3?) -> Void) {
        let n = Int((duration * rate).rounded())
        let dt = 1 / rate
        let g = 9.80665
        let east = Vector3(1, 0, 0).cross(up).normalized
        let north = up.cross(east)
        for _ in 0..<n {
            var f = up * g
            var w: Vector3? = Vector3(rng.gaussian() * 0.01, rng.gaussian() * 0.01, rng.gaussian() * 0.01)
            switch motion {
            case .stationary(let noise):
                f += Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian()) * noise
            case .gait(let cadence, let amplitude):
                phase += 2 * .pi * cadence * dt
                // Fundamental at the step rate, a stride (left/right) component, and heel-strike
                // harmonics that grow with the impact (running lands harder).
                let impact = min(1, amplitude / 10)
                let vertical = amplitude * (Glibc.sin(phase) + 0.3 * Glibc.sin(2 * phase + 0.5) + 0.25 * Glibc.sin(0.5 * phase)
                    + impact * (0.5 * Glibc.sin(3 * phase + 0.3) + 0.35 * Glibc.sin(4 * phase + 1.1)))
                let forward = 0.4 * amplitude * Glibc.sin(phase + 1.2)
                f += up * vertical + north * forward
                f += Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian()) * (0.08 * amplitude)
                w = Vector3(0.8 * Glibc.sin(0.5 * phase), 0.3 * Glibc.sin(phase), 0.2 * Glibc.sin(0.5 * phase + 1))
            case .vehicle(let vibration), .vehicleTurning(let vibration, _, _, _), .vehiclePitching(let vibration, _, _):
                vehiclePhase += dt
                if case .vehicleTurning(_, let yawRate, let swing, let f) = motion {
                    w = up * (yawRate + swing * Glibc.sin(2 * .pi * f * vehiclePhase)) + (w ?? .zero)
                }
                if case .vehiclePitching(_, let rate, let f) = motion {
                    w = east * (rate * Glibc.sin(2 * .pi * f * vehiclePhase)) + (w ?? .zero)
                }
                let longitudinal = 0.4 * Glibc.sin(2 * .pi * vehiclePhase / 17)
                let lateral = 0.3 * Glibc.sin(2 * .pi * vehiclePhase / 11 + 1)
                f += north * longitudinal + east * lateral
                f += up * (rng.gaussian() * vibration) + (north * rng.gaussian() + east * rng.gaussian()) * vibration
            case .lift(let vibration):
                vehiclePhase += dt
                let inRide = vehiclePhase.truncatingRemainder(dividingBy: 20)
                let ride = inRide < 2 ? 0.8 : (inRide >= 8 && inRide < 10 ? -0.8 : 0)
                f += up * (ride + rng.gaussian() * vibration) + (north * rng.gaussian() + east * rng.gaussian()) * (0.5 * vibration)
            case .pedalling(let cadence):
                phase += 2 * .pi * cadence * dt
                // The thigh rotates about the device's x axis: gravity swings in the y–z plane.
                let angle = 0.45 * Glibc.sin(phase)
                let rate = 0.45 * 2 * .pi * cadence * Glibc.cos(phase)
                let c = Glibc.cos(angle), s = Glibc.sin(angle)
                f = Vector3(0, g * s, g * c) + Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian()) * 0.3
                w = Vector3(rate, rng.gaussian() * 0.05, rng.gaussian() * 0.05)
            }
            body(time, f, w)
            time += dt
        }
    }
}
