/// The World Magnetic Model: the earth's main field as a degree-12 spherical-harmonic expansion
/// with linear secular variation (NOAA NCEI / BGS, "The US/UK World Magnetic Model for
/// 2025–2030", technical report; equations of its section 1.2). Our own evaluation of the
/// published public-domain coefficients.
///
/// Used for the magnetic declination that turns magnetic north into true north
/// (`xTrueNorthZVertical`). Not for the per-sample path: an evaluation allocates small arrays.
public struct WorldMagneticModel: Sendable {
    /// Epoch of the coefficients, decimal year.
    public let epoch: Double
    public let name: String
    /// Highest degree n.
    public let maxDegree: Int
    /// Coefficients by index `n*(n+1)/2 + m`: main field g, h (nT) and secular variation (nT/yr).
    let g: [Double], h: [Double], gDot: [Double], hDot: [Double]

    /// `coefficients`: flat rows of (n, m, g, h, ġ, ḣ).
    public init(epoch: Double, name: String, coefficients: [Double]) {
        self.epoch = epoch
        self.name = name
        var maxN = 0
        for i in stride(from: 0, to: coefficients.count, by: 6) { maxN = max(maxN, Int(coefficients[i])) }
        maxDegree = maxN
        let size = (maxN + 1) * (maxN + 2) / 2
        var g = [Double](repeating: 0, count: size), h = g, gd = g, hd = g
        for i in stride(from: 0, to: coefficients.count, by: 6) {
            let n = Int(coefficients[i]), m = Int(coefficients[i + 1])
            let k = n * (n + 1) / 2 + m
            g[k] = coefficients[i + 2]; h[k] = coefficients[i + 3]
            gd[k] = coefficients[i + 4]; hd[k] = coefficients[i + 5]
        }
        self.g = g; self.h = h; gDot = gd; hDot = hd
    }

    /// The model's field at one place and time.
    public struct Field: Sendable, Hashable {
        /// North, east and down components in nT (geodetic frame).
        public var north: Double, east: Double, down: Double
        /// Horizontal intensity and total intensity, nT.
        public var horizontal: Double { (north * north + east * east).squareRoot() }
        public var total: Double { (north * north + east * east + down * down).squareRoot() }
        /// Declination: angle from true north to the horizontal field, degrees, east positive.
        public var declination: Double { Double.atan2(east, north).degrees }
        /// Inclination (dip): angle of the field below the horizontal, degrees, down positive.
        public var inclination: Double { Double.atan2(down, horizontal).degrees }
        /// The field in ENU (x east, y north, z up), µT.
        public var enuMicrotesla: Vector3 { Vector3(east, north, -down) * 0.001 }
    }

    /// Evaluates the model at geodetic `latitude`, `longitude` (degrees, WGS84), `altitude` above
    /// the ellipsoid (km) and `decimalYear` (e.g. 2025.5). Outside the model's five-year span the
    /// linear secular variation is extrapolated; check `isValid(at:)`.
    public func field(latitude: Double, longitude: Double, altitude: Double = 0, decimalYear: Double) -> Field {
        // WGS84 ellipsoid and the model's reference radius, km.
        let a = 6378.137, f = 1 / 298.257223563, referenceRadius = 6371.2
        let e2 = f * (2 - f)
        let phi = latitude.radians, lambda = longitude.radians
        let sinPhi = phi.sin, cosPhi = phi.cos
        let rc = a / (1 - e2 * sinPhi * sinPhi).squareRoot()
        let p = (rc + altitude) * cosPhi
        let z = (rc * (1 - e2) + altitude) * sinPhi
        let r = (p * p + z * z).squareRoot()
        let phiC = (z / r).asin                         // geocentric latitude
        let x = phiC.sin, s = phiC.cos                  // cos θ, sin θ of the colatitude θ
        let dt = decimalYear - epoch
        let nMax = maxDegree

        // Schmidt semi-normalised associated Legendre functions P(n,m) of cos θ and dP/dθ.
        let size = (nMax + 1) * (nMax + 2) / 2
        var pnm = [Double](repeating: 0, count: size)
        var dpnm = [Double](repeating: 0, count: size)
        func k(_ n: Int, _ m: Int) -> Int { n * (n + 1) / 2 + m }
        pnm[0] = 1
        for n in 1...nMax {
            for m in 0...n {
                let v: Double
                if n == m {
                    v = n == 1 ? s : ((Double(2 * n - 1) / Double(2 * n)).squareRoot() * s * pnm[k(n - 1, n - 1)])
                } else {
                    let a1 = Double(2 * n - 1) * x * pnm[k(n - 1, m)]
                    let a2 = n - 2 >= m ? (Double((n - 1) * (n - 1) - m * m)).squareRoot() * pnm[k(n - 2, m)] : 0
                    v = (a1 - a2) / (Double(n * n - m * m)).squareRoot()
                }
                pnm[k(n, m)] = v
            }
        }
        for n in 1...nMax {
            for m in 0...n {
                // sin θ · dP(n,m)/dθ = n cos θ P(n,m) − √(n² − m²) P(n−1,m)
                let lower = m <= n - 1 ? (Double(n * n - m * m)).squareRoot() * pnm[k(n - 1, m)] : 0
                dpnm[k(n, m)] = (Double(n) * x * pnm[k(n, m)] - lower) / s
            }
        }

        var xPrime = 0.0, yPrime = 0.0, zPrime = 0.0
        var ratio = referenceRadius / r
        ratio = ratio * ratio                            // (a/r)^(n+2) starts at n = 0 with (a/r)^2
        for n in 1...nMax {
            ratio *= referenceRadius / r
            for m in 0...n {
                let i = k(n, m)
                let gt = g[i] + dt * gDot[i], ht = h[i] + dt * hDot[i]
                let cm = (Double(m) * lambda).cos, sm = (Double(m) * lambda).sin
                let c = gt * cm + ht * sm
                xPrime += ratio * c * dpnm[i]            // −dP/dφ' = +dP/dθ
                yPrime += ratio * Double(m) * (gt * sm - ht * cm) * pnm[i]
                zPrime -= Double(n + 1) * ratio * c * pnm[i]
            }
        }
        yPrime /= s
        // Geocentric → geodetic.
        let psi = phiC - phi
        return Field(north: xPrime * psi.cos - zPrime * psi.sin,
                     east: yPrime,
                     down: xPrime * psi.sin + zPrime * psi.cos)
    }

    /// Whether `decimalYear` lies within the model's validity (epoch … epoch + 5 years).
    public func isValid(at decimalYear: Double) -> Bool { decimalYear >= epoch && decimalYear < epoch + 5 }

    /// The decimal year of a calendar date (UTC midnight).
    public static func decimalYear(year: Int, month: Int, day: Int) -> Double {
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        var dayOfYear = day - 1
        for i in 0..<max(0, min(12, month - 1)) { dayOfYear += days[i] }
        return Double(year) + Double(dayOfYear) / Double(leap ? 366 : 365)
    }
}
