/// Six-face accelerometer calibration: the device rests on each of its six faces in turn
/// (±x, ±y, ±z up); per axis, offset = (up + down)/2 and scale = (up − down)/(2g).
///
/// Readings are grouped into still periods (rotation rate and acceleration steady for at least
/// `minStillTime`); each still period is assigned to the face whose axis is nearest vertical.
public struct AccelerometerCalibrator: Sendable {
    public struct Result: Sendable {
        /// Offset, m/s², and per-axis scale (1 = perfect).
        public var offset: Vector3
        public var scale: Vector3
        /// Mean specific force of each face: +x, −x, +y, −y, +z, −z.
        public var faces: [Vector3]
    }

    public enum Failure: Error, CustomStringConvertible, Sendable {
        case missingFaces([String])
        public var description: String {
            switch self {
            case .missingFaces(let f):
                "no still period found with \(f.joined(separator: ", ")) up; place the device on each face for 5 s without touching it"
            }
        }
    }

    public static let faceNames = ["+x", "−x", "+y", "−y", "+z", "−z"]
    public var minStillTime = 1.5
    private var rest: RestDetector
    private var sum = Vector3.zero
    private var count = 0.0
    private var stillTime = 0.0
    /// Best (longest) still mean per face.
    private var faceMeans: [Vector3?] = Array(repeating: nil, count: 6)
    private var faceWeights: [Double] = Array(repeating: 0, count: 6)

    public init(samplePeriod: Double) {
        rest = RestDetector(tau: 0.5, thresholdGyro: 3 * .pi / 180, thresholdAcc: 0.3,
                            maxMeanGyro: 5 * .pi / 180, minTime: 0.5, samplePeriod: samplePeriod)
    }

    public mutating func add(gyroscope g: Vector3, accelerometer a: Vector3, dt: Double) {
        rest.update(gyroscope: g, accelerometer: a, dt: dt)
        if rest.isAtRest {
            sum += a
            count += 1
            stillTime += dt
        } else {
            close()
        }
    }

    private mutating func close() {
        defer { sum = .zero; count = 0; stillTime = 0 }
        guard stillTime >= minStillTime, count > 0, let face = Self.face(of: sum / count) else { return }
        let mean = sum / count
        if stillTime > faceWeights[face] {
            faceMeans[face] = mean
            faceWeights[face] = stillTime
        }
    }

    /// The face (index into `faceNames`) whose axis carries a mean specific force `mean`, or nil
    /// when no axis is within ~37° of vertical (the device is not resting on a face).
    public static func face(of mean: Vector3) -> Int? {
        let ax = abs(mean.x), ay = abs(mean.y), az = abs(mean.z)
        let (axis, value) = ax >= ay && ax >= az ? (0, mean.x) : (ay >= az ? (1, mean.y) : (2, mean.z))
        guard abs(value) > 0.8 * mean.norm else { return nil }
        return axis * 2 + (value > 0 ? 0 : 1)
    }

    /// Whether face `index` (order of `faceNames`) already has a still period long enough.
    public func hasFace(_ index: Int) -> Bool { faceMeans.indices.contains(index) && faceMeans[index] != nil }

    /// The still period under way: the face it rests on and for how long, s (nil while moving,
    /// or resting on no face). It counts for that face once `seconds ≥ minStillTime`.
    public var holding: (face: Int, seconds: Double)? {
        guard count > 0, let face = Self.face(of: sum / count) else { return nil }
        return (face, stillTime)
    }

    public mutating func fit(gravity: Double = standardGravity) throws(Failure) -> Result {
        close()
        let missing = (0..<6).filter { faceMeans[$0] == nil }.map { Self.faceNames[$0] }
        guard missing.isEmpty else { throw .missingFaces(missing) }
        let f = faceMeans.map { $0! }
        let up = Vector3(f[0].x, f[2].y, f[4].z), down = Vector3(f[1].x, f[3].y, f[5].z)
        return Result(offset: (up + down) / 2, scale: (up - down) / (2 * gravity), faces: f)
    }
}
