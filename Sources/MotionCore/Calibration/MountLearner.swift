/// "Learn the mount from a resting reading": averages resting samples and finds the rotation that
/// makes the measured specific force point along board +z (gravity on −z, Core Motion terms;
/// `SensorMount.learned(fromRestingSpecificForce:)`). Refuses when the board was not at rest.
///
/// Value type with running sums (Welford), no storage per sample. Feed chip-axis readings (SI:
/// m/s², rad/s).
public struct MountLearner: Sendable {
    /// What "at rest" means for the averaged window.
    public struct Limits: Sendable, Hashable {
        /// Largest RMS deviation of the specific force from its mean, m/s² (3-D). A board on a
        /// table reads 0.01–0.07 m/s² of noise; a hand-held one 0.1–0.5.
        public var accelerometerSpread: Double = 0.15
        /// Largest RMS deviation of the rotation rate from its mean, rad/s (3-D); ≈ 1.7 °/s.
        /// The mean itself is a bias and is not judged.
        public var gyroscopeSpread: Double = 0.03
        /// The mean specific force must be within this fraction of standard gravity (not
        /// accelerating, not in free fall).
        public var gravityTolerance: Double = 0.1
        public init() {}
    }

    /// Why learning refused; each says what to do.
    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        case tooFewSamples(got: Int, wanted: Int)
        case moving(accelerometerSpread: Double, gyroscopeSpread: Double?)
        case notGravity(magnitude: Double)
        case noAccelerometer

        public var description: String {
            switch self {
            case .tooFewSamples(let got, let wanted):
                return "only \(got) of \(wanted) resting samples arrived; is the source delivering?"
            case .moving(let a, let g):
                let gyro = g.map { String(format3($0)) + " rad/s" } ?? "n/a"
                return "the board is not at rest (accelerometer spread \(format3(a)) m/s², gyroscope spread \(gyro)); put it down in its final place, keep it still and try again"
            case .notGravity(let m):
                return "the averaged specific force is \(format3(m)) m/s², not gravity (9.81); the board is accelerating or the accelerometer scale is wrong"
            case .noAccelerometer:
                return "the source has no accelerometer; a mount cannot be learned from rest"
            }
        }
    }

    /// The learned mount and what it was learned from.
    public struct Result: Sendable, Hashable {
        public var mount: SensorMount
        /// Mean specific force, chip axes, m/s².
        public var meanSpecificForce: Vector3
        public var samples: Int
        public var accelerometerSpread: Double
        public var gyroscopeSpread: Double?
    }

    public let wanted: Int
    public var limits: Limits
    public private(set) var count = 0
    private var accMean = Vector3.zero, accM2 = 0.0
    private var gyroCount = 0
    private var gyroMean = Vector3.zero, gyroM2 = 0.0

    /// - Parameter samples: how many samples to average (≥ 1).
    public init(samples: Int, limits: Limits = Limits()) {
        wanted = max(1, samples)
        self.limits = limits
    }

    public var isComplete: Bool { count >= wanted }

    /// Adds one reading (chip axes). `rotationRate` nil when the source has no gyroscope.
    /// Non-finite readings count as motion (they make the spread infinite).
    public mutating func add(specificForce f: Vector3, rotationRate w: Vector3?) {
        guard count < wanted else { return }
        count += 1
        let d = f - accMean
        accMean += d / Double(count)
        accM2 += d.dot(f - accMean)
        if let w {
            gyroCount += 1
            let e = w - gyroMean
            gyroMean += e / Double(gyroCount)
            gyroM2 += e.dot(w - gyroMean)
        }
    }

    /// Adds a sample's raw readings.
    public mutating func add(_ s: IMUSample) {
        guard s.contents.contains(.accelerometer) else { return }
        add(specificForce: s.specificForce, rotationRate: s.contents.contains(.gyroscope) ? s.rotationRate : nil)
    }

    /// The learned mount, or why not.
    public func result() -> Swift.Result<Result, Refusal> {
        guard count > 0 else { return .failure(.noAccelerometer) }
        guard count >= wanted else { return .failure(.tooFewSamples(got: count, wanted: wanted)) }
        let accSpread = (accM2 / Double(count)).squareRoot()
        let gyroSpread: Double? = gyroCount > 0 ? (gyroM2 / Double(gyroCount)).squareRoot() : nil
        guard accSpread.isFinite, accSpread <= limits.accelerometerSpread,
              (gyroSpread.map { $0.isFinite && $0 <= limits.gyroscopeSpread } ?? true) else {
            return .failure(.moving(accelerometerSpread: accSpread, gyroscopeSpread: gyroSpread))
        }
        let n = accMean.norm
        guard n.isFinite, abs(n - standardGravity) <= limits.gravityTolerance * standardGravity else {
            return .failure(.notGravity(magnitude: n))
        }
        guard let mount = try? SensorMount.learned(fromRestingSpecificForce: accMean) else {
            return .failure(.notGravity(magnitude: n))
        }
        return .success(Result(mount: mount, meanSpecificForce: accMean, samples: count,
                               accelerometerSpread: accSpread, gyroscopeSpread: gyroSpread))
    }
}

/// Three decimals, without Foundation.
func format3(_ v: Double) -> String {
    guard v.isFinite else { return "\(v)" }
    return "\((v * 1000).rounded() / 1000)"
}
