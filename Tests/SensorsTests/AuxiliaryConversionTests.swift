@testable import Sensors
import Testing

/// Truth: the kernel's IIO ABI (Documentation/ABI/testing/sysfs-bus-iio): in_pressure_input is kPa,
/// in_temp_input milli °C, in_illuminance_input lux, in_humidityrelative_input milli percent; a raw
/// channel's value is (raw + offset) · scale in those units.
@Suite("Auxiliary IIO conversion")
struct AuxiliaryConversionTests {
    @Test("IIO channel types map to the four published kinds; others are not auxiliary")
    func kinds() {
        #expect(AuxiliaryKind(iioType: "pressure") == .pressure)
        #expect(AuxiliaryKind(iioType: "temp") == .temperature)
        #expect(AuxiliaryKind(iioType: "illuminance") == .light)
        #expect(AuxiliaryKind(iioType: "humidityrelative") == .humidity)
        #expect(AuxiliaryKind(iioType: "voltage") == nil)
        #expect(AuxiliaryKind.iioType(ofChannel: "temp") == "temp")
        #expect(AuxiliaryKind.iioType(ofChannel: "pressure0") == "pressure")
        #expect(AuxiliaryKind.iioType(ofChannel: "illuminance_clear") == "illuminance")
    }

    @Test("_input is taken in ABI units: 100.653 kPa, 25080 m°C = 25.08 °C, 48560 m% = 48.56 %, 321 lx")
    func input() throws {
        let p = try #require(AuxiliarySensorReader.value(input: 100.653, raw: nil, scale: nil, offset: nil, kind: .pressure))
        #expect(abs(p - 100.653) < 1e-12)
        let t = try #require(AuxiliarySensorReader.value(input: 25080, raw: 1, scale: 1, offset: 0, kind: .temperature))
        #expect(abs(t - 25.08) < 1e-12)
        let h = try #require(AuxiliarySensorReader.value(input: 48560, raw: nil, scale: nil, offset: nil, kind: .humidity))
        #expect(abs(h - 48.56) < 1e-12)
        let l = try #require(AuxiliarySensorReader.value(input: 321, raw: nil, scale: nil, offset: nil, kind: .light))
        #expect(l == 321)
    }

    @Test("raw channels: (raw + offset) · scale — bh1750 raw 1200 × 0.833333 lx ≈ 1000 lx; temp (raw + offset) · scale m°C")
    func raw() throws {
        let l = try #require(AuxiliarySensorReader.value(input: nil, raw: 1200, scale: 1 / 1.2, offset: nil, kind: .light))
        #expect(abs(l - 1000) < 1e-9)
        // A temp channel with offset: raw 2508, offset 0, scale 10 m°C per LSB → 25.08 °C.
        let t = try #require(AuxiliarySensorReader.value(input: nil, raw: 2508, scale: 10, offset: 0, kind: .temperature))
        #expect(abs(t - 25.08) < 1e-12)
        let t2 = try #require(AuxiliarySensorReader.value(input: nil, raw: 1000, scale: 5, offset: -500, kind: .temperature))
        #expect(abs(t2 - 2.5) < 1e-12)
    }

    @Test("no value, or a non-finite one, gives no reading")
    func missing() {
        #expect(AuxiliarySensorReader.value(input: nil, raw: nil, scale: 1, offset: 0, kind: .pressure) == nil)
        #expect(AuxiliarySensorReader.value(input: .infinity, raw: nil, scale: nil, offset: nil, kind: .pressure) == nil)
    }

    @Test("a device that does not exist is a notFound error")
    func missingDevice() {
        #expect {
            _ = try AuxiliarySensorReader(uri: "local:", devices: ["no-such-barometer"])
        } throws: { error in
            (error as? SensorError)?.kind == .notFound
        }
    }
}
