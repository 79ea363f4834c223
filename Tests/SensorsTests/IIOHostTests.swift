import Testing
@testable import Sensors
import MotionCore
import TestSupport

@Suite("IIO sysfs parsing and scan decoding (host)", .ownThread)
struct IIOHostTests {
    @Test func sysfsNumbersParseWithoutLocaleAndIgnoreTheNewline() {
        #expect(IIOSysfsValues.number("0.000598\n") == 0.000598)
        #expect(IIOSysfsValues.number(" -12 ") == -12)
        #expect(IIOSysfsValues.number("1e-3") == 0.001)
        #expect(IIOSysfsValues.number("0,000598") == nil)
        #expect(IIOSysfsValues.number("") == nil)
    }

    @Test func availableListsAndRangesExpandSorted() {
        #expect(IIOSysfsValues.availableValues("25 50 100 200 400 800 1600 3200\n") == [25, 50, 100, 200, 400, 800, 1600, 3200])
        #expect(IIOSysfsValues.availableValues("0.78125 1.5625 12.5") == [0.78125, 1.5625, 12.5])
        #expect(IIOSysfsValues.availableValues("[10 10 50]") == [10, 20, 30, 40, 50])
        #expect(IIOSysfsValues.pick([25, 50, 100, 200], atLeast: 120) == 200)
        #expect(IIOSysfsValues.pick([25, 50, 100, 200], atLeast: 1000) == 200)
    }

    @Test func mountMatrixMapsSensorAxesToTheBoard() throws {
        let m = try #require(IIOSysfsValues.mountMatrix("0, 1, 0; -1, 0, 0; 0, 0, 1\n"))
        let v = m * Vector3(1, 2, 3)
        #expect(v == Vector3(2, -1, 3))
        #expect(IIOSysfsValues.mountMatrix("1, 0, 0; 0, 1, 0") == nil)
        #expect(IIOSysfsValues.mountMatrix("1, 0, 0; 0, 1, 0; 0, 0, x") == nil)
    }

    @Test func scanTypesParseAndDecodeWithSignShiftAndEndianness() throws {
        let le = try #require(IIOScanFormat(typeString: "le:s16/16>>0\n"))
        #expect(le == IIOScanFormat(storageBits: 16, realBits: 16, shift: 0, isSigned: true, isBigEndian: false))
        [UInt8(0x00), 0xC0].withUnsafeBytes { #expect(le.decode($0.baseAddress!) == -16384) }
        let be12 = try #require(IIOScanFormat(typeString: "be:s12/16>>4"))
        [UInt8(0xFF), 0xF0].withUnsafeBytes { #expect(be12.decode($0.baseAddress!) == -1) }
        [UInt8(0x7F), 0xF0].withUnsafeBytes { #expect(be12.decode($0.baseAddress!) == 2047) }
        let u24 = try #require(IIOScanFormat(typeString: "le:u24/32>>0"))
        [UInt8(0xFF), 0xFF, 0xFF, 0xFF].withUnsafeBytes { #expect(u24.decode($0.baseAddress!) == 0xFFFFFF) }
        let ts = try #require(IIOScanFormat(typeString: "le:s64/64>>0"))
        withUnsafeBytes(of: Int64(1_234_567_890_123).littleEndian) { #expect(ts.decode($0.baseAddress!) == 1_234_567_890_123) }
        #expect(IIOScanFormat(typeString: "xx:s16/16>>0") == nil)
        #expect(IIOScanFormat(typeString: "le:s17/16>>0") == nil)
    }

    @Test func triggerSettingsParse() {
        #expect(IIOTrigger("own") == .own)
        #expect(IIOTrigger("none") == .none)
        #expect(IIOTrigger("hrtimer") == .hrtimer(name: "edgemotion"))
        #expect(IIOTrigger("hrtimer:imu200") == .hrtimer(name: "imu200"))
        #expect(IIOTrigger("sysfstrig7") == .named("sysfstrig7"))
    }

    @Test func aMissingRemoteContextIsANamedError() {
        let source = IIOSource(uri: "ip:127.0.0.1:1", device: "bmi160")
        let error = #expect(throws: SensorError.self) { try source.start(requestedRate: 100) }
        #expect(error?.description.hasPrefix("IIO context 'ip:127.0.0.1:1': not found") == true, "\(String(describing: error))")
    }
}
