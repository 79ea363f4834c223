import Testing
import Foundation
@testable import Sensors
import MotionCore

extension VMTests {
    /// Real kernel drivers on i2c-stub: bmp280 at 0x76 (hardware/register-maps/bmp280-stub.regs, the
    /// data sheet's worked example) and tsl2563 at 0x39 (fixtures.sh), read as `auxiliary:` devices.
    @Suite struct Auxiliary {
        /// BMP280 data sheet (BST-BMP280-DS001) worked example: adc_T 519888, adc_P 415148 with the
        /// example trimming give T = 25.08 °C and p = 100653.27 Pa (64-bit fixed-point formula).
        static let datasheetTemperature = 25.08
        static let datasheetPressureKPa = 100.65327

        static func resetBMP280() throws {
            try VMFixtures.poke(0x76, 0xF7, [0x65, 0x5A, 0xC0, 0x7E, 0xED, 0x00])
        }

        @Test func bmp280GivesTheDataSheetsWorkedExampleInKPaAndCelsius() throws {
            try Self.resetBMP280()
            let reader = try AuxiliarySensorReader(devices: ["bmp280"])
            #expect(reader.kinds == [.pressure, .temperature])
            let readings = reader.read()
            let p = try #require(readings.first { $0.kind == .pressure })
            let t = try #require(readings.first { $0.kind == .temperature })
            #expect(p.device == "bmp280")
            #expect(abs(p.value - Self.datasheetPressureKPa) < 0.001, "pressure \(p.value) kPa")
            #expect(abs(t.value - Self.datasheetTemperature) < 0.01, "temperature \(t.value) °C")
        }

        @Test func aChangedPressureInTheStubShowsUpAsARelativeAltitude() throws {
            defer { try? Self.resetBMP280() }
            let reader = try AuxiliarySensorReader(devices: ["bmp280"])
            let before = try #require(reader.read().first { $0.kind == .pressure }).value
            // adc_P 415148 − 1600: a lower raw pressure count is a higher pressure on the BMP280
            // (the compensation's sign), so check the direction and size, not the code's formula.
            let adc = 415148 - 1600
            try VMFixtures.poke(0x76, 0xF7, [UInt8(adc >> 12), UInt8((adc >> 4) & 0xFF), UInt8((adc & 0xF) << 4)])
            let after = try #require(reader.read().first { $0.kind == .pressure }).value
            #expect(after != before)
            let climb = BarometricAltitude.relativeAltitude(pressureKPa: after, referenceKPa: before)
            // 1 kPa near sea level is about 84 m (U.S. Standard Atmosphere table: 100 m per 1.196 kPa).
            #expect(abs(climb + (after - before) / 1.196 * 100) < 2, "\(before) → \(after) kPa = \(climb) m")
        }

        @Test func tsl2563GivesLuxFromItsADCWords() throws {
            let reader = try AuxiliarySensorReader(devices: ["tsl2563"])
            #expect(reader.kinds == [.light])
            let l = try #require(reader.read().first { $0.kind == .light })
            // TSL2563 data sheet, T/FN/CL package, 402 ms at 16×: CH1/CH0 = 0 → lux = 0.0304 · CH0 = 30.4;
            // the driver's integer arithmetic rounds down.
            #expect(l.value >= 29 && l.value <= 31, "\(l.value) lx")
        }

        @Test func bothDevicesTogetherAndAMissingOneNamed() throws {
            let reader = try AuxiliarySensorReader(devices: ["bmp280", "tsl2563"])
            #expect(reader.kinds == [.pressure, .temperature, .light])
            #expect(throws: SensorError.self) { _ = try AuxiliarySensorReader(devices: ["bmp280", "bh1750"]) }
        }
    }
}
