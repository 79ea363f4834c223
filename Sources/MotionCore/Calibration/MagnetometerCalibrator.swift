/// Hard- and soft-iron calibration of a magnetometer from readings taken while the device is
/// turned through many orientations: a least-squares ellipsoid fit.
///
/// The readings lie on an ellipsoid `(m − o)ᵀ M (m − o) = 1` (hard-iron offset `o`, soft-iron and
/// scale errors in `M`). The fit solves the general quadric
/// `a x² + b y² + c z² + 2d xy + 2e xz + 2f yz + 2g x + 2h y + 2i z = 1` by least squares, takes
/// the centre and shape from it, and returns the symmetric correction `W = r · M^½` with
/// `det W = 1` (volume-preserving), so that `W (m − o)` lies on a sphere of radius `r` µT.
public struct MagnetometerCalibrator: Sendable {
    public enum Verdict: String, Sendable {
        case good, fair, poor
    }

    public struct Result: Sendable {
        /// Hard-iron offset, µT.
        public var offset: Vector3
        /// Soft-iron correction matrix (symmetric, determinant 1).
        public var softIron: Matrix3
        /// Radius of the corrected sphere: the field strength, µT.
        public var fieldStrength: Double
        /// Fraction (0…1) of 32 equal-area direction cells the corrected readings visit.
        public var coverage: Double
        /// Those cells as a bit set: bit `cell(of:)` is set when a corrected reading points into it.
        public var cells: UInt32
        /// RMS deviation of the corrected magnitude from `fieldStrength`, relative.
        public var residual: Double
        public var verdict: Verdict
        /// What to do to improve a fair or poor result.
        public var advice: String
    }

    public enum Failure: Error, CustomStringConvertible, Sendable {
        case tooFewSamples(Int)
        case degenerate
        public var description: String {
            switch self {
            case .tooFewSamples(let n): "only \(n) magnetometer readings; turn the device slowly through every orientation for 30–60 s"
            case .degenerate: "the readings do not span an ellipsoid (the device was hardly turned, or the field changed); turn it through every orientation, away from metal"
            }
        }
    }

    private var readings: [Vector3] = []

    public init() {}

    /// Room for `capacity` readings from the start, so that adding up to that many never allocates.
    public init(reservingCapacity capacity: Int) { readings.reserveCapacity(capacity) }

    /// Number of direction cells of `Result.cells`: 4 equal-area bands in z × 8 sectors in azimuth.
    public static let cellCount = 32

    /// The direction cell of a unit vector `u` (corrected field direction): band `⌊(z+1)·2⌋` from
    /// the bottom (z = −1) to the top, sector `⌊(atan2(y, x) + π)/(2π)·8⌋`; cell = band·8 + sector.
    public static func cell(of u: Vector3) -> Int {
        let band = min(3, max(0, Int((u.z + 1) * 2)))          // equal-area bands in z
        let sector = min(7, max(0, Int((Double.atan2(u.y, u.x) + .pi) / (2 * .pi) * 8)))
        return band * 8 + sector
    }

    /// Adds one raw reading, µT, sensor frame.
    public mutating func add(_ m: Vector3) {
        if m.normSquared > 0 { readings.append(m) }
    }

    public var count: Int { readings.count }

    public func fit() throws(Failure) -> Result {
        guard readings.count >= 50 else { throw .tooFewSamples(readings.count) }
        // Centre and scale the data for conditioning.
        var mean = Vector3.zero
        for m in readings { mean += m }
        mean = mean / Double(readings.count)
        var scale = 0.0
        for m in readings { scale += (m - mean).norm }
        scale /= Double(readings.count)
        guard scale > 0 else { throw .degenerate }

        var ata = [[Double]](repeating: [Double](repeating: 0, count: 9), count: 9)
        var atb = [Double](repeating: 0, count: 9)
        for m in readings {
            let p = (m - mean) / scale
            let row = [p.x * p.x, p.y * p.y, p.z * p.z, 2 * p.x * p.y, 2 * p.x * p.z, 2 * p.y * p.z, 2 * p.x, 2 * p.y, 2 * p.z]
            for i in 0..<9 {
                atb[i] += row[i]
                for j in 0..<9 { ata[i][j] += row[i] * row[j] }
            }
        }
        guard let s = solveLinearSystem(ata, atb) else { throw .degenerate }
        let a = Matrix3(s[0], s[3], s[4], s[3], s[1], s[5], s[4], s[5], s[2])
        let v = Vector3(s[6], s[7], s[8])
        guard let aInv = a.inverse else { throw .degenerate }
        let centre = -(aInv * v)
        let k = 1 + centre.dot(a * centre)
        guard k > 0 else { throw .degenerate }
        let shape = (1 / k) * a
        let (values, vectors) = symmetricEigen(shape)
        guard values.x > 0, values.y > 0, values.z > 0 else { throw .degenerate }
        // M^½ and the radius that makes det W = 1.
        let root = Vector3(values.x.squareRoot(), values.y.squareRoot(), values.z.squareRoot())
        let radiusScaled = 1 / (root.x * root.y * root.z).cbrt
        let d = Matrix3.diagonal(root.x * radiusScaled, root.y * radiusScaled, root.z * radiusScaled)
        let w = vectors * d * vectors.transposed
        let offset = mean + centre * scale
        let radius = radiusScaled * scale

        // Quality: residual and direction coverage of the corrected readings.
        var cells: UInt32 = 0
        var sq = 0.0
        for m in readings {
            let c = w * (m - offset)
            let n = c.norm
            sq += (n / radius - 1) * (n / radius - 1)
            cells |= 1 << UInt32(Self.cell(of: c / n))
        }
        let residual = (sq / Double(readings.count)).squareRoot()
        let coverage = Double(cells.nonzeroBitCount) / Double(Self.cellCount)
        let verdict: Verdict
        var advice = ""
        if coverage >= 0.75 && residual < 0.02 {
            verdict = .good
        } else if coverage >= 0.5 && residual < 0.05 {
            verdict = .fair
        } else {
            verdict = .poor
        }
        if coverage < 0.75 { advice += "turn the device through more orientations (coverage \(Int((coverage * 100).rounded())) %); " }
        if residual >= 0.02 { advice += "keep away from metal and magnets while calibrating (residual \(Double(Int((residual * 1000).rounded())) / 10) %); " }
        return Result(offset: offset, softIron: w, fieldStrength: radius, coverage: coverage, cells: cells, residual: residual,
                      verdict: verdict, advice: advice.isEmpty ? "none" : String(advice.dropLast(2)))
    }
}

extension Double {
    var cbrt: Double { self < 0 ? -(-self).log.exp3 : (self == 0 ? 0 : self.log.exp3) }
    private var exp3: Double { (self / 3).exp }
}
