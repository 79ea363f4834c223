import Testing
@testable import MotionCore

@Suite("World Magnetic Model 2025")
struct WMMTests {
    /// The model's own published test values (WMM2025_TEST_VALUES.txt, NOAA NCEI):
    /// year, height km, latitude, longitude, X, Y, Z nT, inclination °, declination °.
    static let published: [(Double, Double, Double, Double, Double, Double, Double, Double, Double)] = [
        (2025.0, 0, 80, 0, 6521.6, 145.9, 54791.5, 83.21, 1.28),
        (2025.0, 0, 0, 120, 39677.8, -109.6, -10580.2, -14.93, -0.16),
        (2025.0, 0, -80, 240, 6117.5, 15751.9, -52022.5, -72.00, 68.78),
        (2025.0, 100, 80, 0, 6216.0, 92.4, 52598.8, 83.26, 0.85),
        (2025.0, 100, 0, 120, 37688.6, -96.2, -10152.1, -15.08, -0.15),
        (2025.0, 100, -80, 240, 5907.6, 14780.3, -49540.7, -72.19, 68.21),
        (2027.5, 0, 80, 0, 6500.8, 294.5, 54869.4, 83.24, 2.59),
        (2027.5, 0, 0, 120, 39701.6, -167.4, -10381.8, -14.65, -0.24),
        (2027.5, 0, -80, 240, 6200.7, 15730.3, -51783.7, -71.92, 68.49),
        (2027.5, 100, 80, 0, 6196.7, 233.8, 52670.5, 83.29, 2.16),
        (2027.5, 100, 0, 120, 37711.5, -148.7, -9969.8, -14.81, -0.23),
        (2027.5, 100, -80, 240, 5984.0, 14760.1, -49317.7, -72.10, 67.93),
    ]

    @Test(arguments: 0..<12)
    func matchesPublishedTestValue(_ i: Int) {
        let (year, height, lat, lon, x, y, z, incl, decl) = Self.published[i]
        let f = WorldMagneticModel.wmm2025.field(latitude: lat, longitude: lon, altitude: height, decimalYear: year)
        #expect(abs(f.declination - decl) < 0.1, "declination \(f.declination)° vs \(decl)°")
        #expect(abs(f.inclination - incl) < 0.1, "inclination \(f.inclination)° vs \(incl)°")
        #expect(abs(f.north - x) < 1 && abs(f.east - y) < 1 && abs(f.down - z) < 1,
                "X,Y,Z \(f.north), \(f.east), \(f.down) vs \(x), \(y), \(z)")
    }

    @Test func decimalYearCountsDaysOfTheYear() {
        #expect(WorldMagneticModel.decimalYear(year: 2025, month: 1, day: 1) == 2025.0)
        #expect(abs(WorldMagneticModel.decimalYear(year: 2025, month: 7, day: 2) - (2025 + 182.0 / 365)) < 1e-12)
        #expect(WorldMagneticModel.wmm2025.isValid(at: 2026.9))
        #expect(!WorldMagneticModel.wmm2025.isValid(at: 2031))
    }
}
