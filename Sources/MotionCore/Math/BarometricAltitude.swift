#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Altitude from barometric pressure: the international barometric formula (ICAO / ISO 2533
/// standard atmosphere, troposphere below 11 km):
///
///     h(p) = (T₀ / L) · (1 − (p / p₀)^(R·L / (g₀·M)))
///
/// with T₀ = 288.15 K, L = 0.0065 K/m, p₀ = 101.325 kPa, R = 8.3144598 J/(mol·K),
/// g₀ = 9.80665 m/s², M = 0.0289644 kg/mol, so T₀/L = 44 330.77 m and the exponent is 0.190263.
/// Source: U.S. Standard Atmosphere, 1976 (NOAA/NASA/USAF), eq. 33a solved for height; also
/// ISO 2533:1975. Relative altitude between two pressures is the difference of their heights, the
/// way Core Motion's `CMAltitudeData.relativeAltitude` reports the change since the updates began.
public enum BarometricAltitude {
    /// Sea-level standard pressure p₀, kPa.
    public static let standardPressureKPa = 101.325
    /// T₀ / L, m.
    public static let scaleHeightMetres = 288.15 / 0.0065
    /// R·L / (g₀·M), dimensionless.
    public static let exponent = 8.3144598 * 0.0065 / (9.80665 * 0.0289644)

    /// Height above the p₀ = 101.325 kPa level of the standard atmosphere, m, for pressure `kPa`.
    public static func standardHeight(pressureKPa p: Double) -> Double {
        scaleHeightMetres * (1 - pow(p / standardPressureKPa, exponent))
    }

    /// Metres climbed from where the pressure was `referenceKPa` to where it is `pressureKPa`
    /// (positive up). NaN for a non-positive pressure.
    public static func relativeAltitude(pressureKPa p: Double, referenceKPa ref: Double) -> Double {
        guard p > 0, ref > 0 else { return .nan }
        return standardHeight(pressureKPa: p) - standardHeight(pressureKPa: ref)
    }
}
