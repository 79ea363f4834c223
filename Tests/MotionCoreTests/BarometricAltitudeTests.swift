import MotionCore
import Testing

/// Truth: the U.S. Standard Atmosphere, 1976, Table I (geopotential altitude → pressure):
/// 0 m 101.325 kPa, 100 m 100.129 kPa, 500 m 95.461 kPa, 1000 m 89.875 kPa, 2000 m 79.495 kPa,
/// 5000 m 54.019 kPa. The formula must reproduce the published table within 1 m.
@Suite("Barometric altitude")
struct BarometricAltitudeTests {
    static let table: [(metres: Double, kPa: Double)] = [
        (0, 101.325), (100, 100.129), (500, 95.461), (1000, 89.875), (2000, 79.495), (5000, 54.019),
    ]

    @Test("the standard atmosphere's table heights come back from their pressures", arguments: table)
    func standardTable(row: (metres: Double, kPa: Double)) {
        #expect(abs(BarometricAltitude.standardHeight(pressureKPa: row.kPa) - row.metres) < 1)
    }

    @Test("101.325 kPa to 100.129 kPa is a 100 m climb; back down is −100 m")
    func hundredMetres() {
        #expect(abs(BarometricAltitude.relativeAltitude(pressureKPa: 100.129, referenceKPa: 101.325) - 100) < 0.5)
        #expect(abs(BarometricAltitude.relativeAltitude(pressureKPa: 101.325, referenceKPa: 100.129) + 100) < 0.5)
    }

    @Test("relative altitude between two table rows above sea level: 1000 m → 2000 m is +1000 m")
    func aboveSeaLevel() {
        #expect(abs(BarometricAltitude.relativeAltitude(pressureKPa: 79.495, referenceKPa: 89.875) - 1000) < 1)
    }

    @Test("unchanged pressure is 0 m; a non-positive pressure is NaN, not a crash")
    func edges() {
        #expect(BarometricAltitude.relativeAltitude(pressureKPa: 97.3, referenceKPa: 97.3) == 0)
        #expect(BarometricAltitude.relativeAltitude(pressureKPa: 0, referenceKPa: 101.325).isNaN)
        #expect(BarometricAltitude.relativeAltitude(pressureKPa: -1, referenceKPa: 101.325).isNaN)
    }
}
