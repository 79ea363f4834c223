import Testing
import Glibc
@testable import Sensors

@Suite("I2C errors and bus opening (host)")
struct I2CHostTests {
    @Test func aMissingBusSaysHowToEnableIt() {
        let error = #expect(throws: SensorError.self) { try I2CBus(number: 97, path: "/dev/i2c-97-does-not-exist") }
        #expect(error?.kind == .notFound)
        #expect(error?.description.contains("/dev/i2c-97-does-not-exist") == true)
        #expect(error?.description.contains("dtparam=i2c_arm=on") == true)
    }

    @Test func aNodeThatIsNotAnAdapterIsRefused() {
        let error = #expect(throws: SensorError.self) { try I2CBus(number: 0, path: "/dev/null") }
        #expect(error?.kind == .unsupported)
        #expect(error?.description.contains("not an I2C adapter") == true)
    }

    @Test func transferErrorsNameBusAddressAndRegister() {
        let nack = I2CError.transfer(bus: 1, address: 0x68, register: I2CRegister(0x75, "WHO_AM_I"), reading: true, errno: ENXIO)
        #expect(nack.description.hasPrefix("i2c-1 0x68 register 0x75 (WHO_AM_I): I/O error: read not acknowledged"))
        #expect(nack.description.contains("address pin"))
        let timeout = I2CError.transfer(bus: 3, address: 0x6b, register: I2CRegister(0x22, "OUTX_L_G"), reading: true, errno: ETIMEDOUT)
        #expect(timeout.description.contains("i2c-3 0x6b register 0x22 (OUTX_L_G)"))
        #expect(timeout.description.contains("pull-ups"))
        let short = I2CError.shortRead(bus: 1, address: 0x68, register: I2CRegister(0x3B, "ACCEL_XOUT_H"), got: 12, wanted: 14)
        #expect(short.kind == .invalidData)
        #expect(short.description.contains("got 12 of 14 bytes"))
        let busy = I2CError.selectAddress(bus: 1, address: 0x68, errno: EBUSY)
        #expect(busy.description.contains("/sys/bus/i2c/devices/1-0068/driver"))
    }

    @Test func functionalityPicksPlainI2CWhenAvailableElseSMBusBlock() {
        #expect(I2CFunctionality([.plainI2C, .smbusI2CBlockRead]).transferMode == .i2cReadWrite)
        #expect(I2CFunctionality(rawValue: 0xc7f0000).transferMode == .smbusBlock)   // i2c-stub's I2C_FUNCS
        #expect(I2CFunctionality(rawValue: 0).transferMode == nil)
    }
}
