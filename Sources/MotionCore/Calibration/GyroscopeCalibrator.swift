/// Gyroscope bias from readings taken while the device lies still: the mean rotation rate.
///
/// Rejects the run when the device evidently moved (rate spread or accelerometer spread too
/// large), because a bias learned during motion would be wrong.
public struct GyroscopeCalibrator: Sendable {
    public struct Result: Sendable {
        /// Bias, rad/s, sensor frame.
        public var bias: Vector3
        /// Standard deviation of the rate about the mean, rad/s (noise).
        public var noise: Double
        public var samples: Int
    }

    public enum Failure: Error, CustomStringConvertible, Sendable {
        case tooFewSamples(Int)
        case moved(gyroSpread: Double, accSpread: Double)
        public var description: String {
            switch self {
            case .tooFewSamples(let n): "only \(n) samples; keep the device still for at least 5 s"
            case .moved(let g, let a):
                "the device moved during the calibration (rate spread \(Int((g * 180 / .pi * 100).rounded()) / 100) °/s, acceleration spread \(Int((a * 100).rounded()) / 100) m/s²); put it down on a steady surface and run again"
            }
        }
    }

    /// Largest accepted spread of the rate (rad/s) and of the specific force (m/s²).
    public var maxGyroSpread = 0.5 * Double.pi / 180
    public var maxAccSpread = 0.3
    private var n = 0.0
    private var gyroSum = Vector3.zero, gyroSq = Vector3.zero
    private var accSum = Vector3.zero, accSq = Vector3.zero

    public init() {}

    public mutating func add(gyroscope g: Vector3, accelerometer a: Vector3) {
        n += 1
        gyroSum += g; gyroSq += g.scaled(by: g)
        accSum += a; accSq += a.scaled(by: a)
    }

    public func fit() throws(Failure) -> Result {
        guard n >= 100 else { throw .tooFewSamples(Int(n)) }
        func spread(_ sum: Vector3, _ sq: Vector3) -> Double {
            let m = sum / n
            let v = sq / n - m.scaled(by: m)
            return max(0, v.x + v.y + v.z).squareRoot()
        }
        let g = spread(gyroSum, gyroSq), a = spread(accSum, accSq)
        guard g <= maxGyroSpread, a <= maxAccSpread else { throw .moved(gyroSpread: g, accSpread: a) }
        return Result(bias: gyroSum / n, noise: g, samples: Int(n))
    }
}
