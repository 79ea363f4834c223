import Testing
import Foundation
@testable import Sensors
import MotionCore

extension VMTests {
    /// The other chip drivers against register maps on i2c-stub (SMBus block path).
    @Suite struct Chips {
        static func readOnce(_ source: I2CIMUSource) throws -> IMUSample {
            var buf = [IMUSample](repeating: IMUSample(timestampNanos: 0, sequence: 0, contents: []), count: 1)
            let r = try buf.withUnsafeMutableBufferPointer { try source.read(into: $0, timeout: .seconds(1)) }
            #expect(r == .samples(1))
            return buf[0]
        }

        @Test func lsm6dsoxIsConfiguredAndItsLittleEndianBurstScaled() throws {
            let source = I2CIMUSource(bus: VMFixtures.i2cBus, address: 0x6B, chip: .lsm6dsox, accelRangeG: 4, gyroRangeDPS: 500)
            let config = try source.start(requestedRate: 100)
            defer { source.stop() }
            #expect(config.rate == 104)
            let bus = try I2CBus(number: VMFixtures.i2cBus)
            #expect(try bus.readByte(address: 0x6B, register: LSM6DSx.Register.control1Accel) == 0x48)   // 104 Hz, ±4 g
            #expect(try bus.readByte(address: 0x6B, register: LSM6DSx.Register.control2Gyro) == 0x44)    // 104 Hz, ±500 °/s
            #expect(try bus.readByte(address: 0x6B, register: LSM6DSx.Register.control3) == 0x44)        // BDU | IF_INC
            let s = try Self.readOnce(source)
            #expect(abs(s.specificForce.z - 8197 * 0.122e-3 * standardGravity) < 1e-9)
            #expect(abs(s.rotationRate.x - 1000 * 17.5e-3 * Double.pi / 180) < 1e-9)
            #expect(abs(s.rotationRate.y + 1000 * 17.5e-3 * Double.pi / 180) < 1e-9)
        }

        @Test func bmi160DrivenDirectlyWritesRangeAndRateAndScalesItsBurst() throws {
            // The MPU-6050 map at 0x68 doubles as a BMI160 (identity 0x00 = 0xD1) for this test.
            try VMFixtures.poke(0x68, 0x00, [0xD1])
            defer { try? VMFixtures.poke(0x68, 0x00, [0x00]) }
            try VMFixtures.poke(0x68, 0x0C, VMFixtures.littleEndian(328) + VMFixtures.littleEndian(0) + VMFixtures.littleEndian(-328)
                                 + VMFixtures.littleEndian(0) + VMFixtures.littleEndian(-4096) + VMFixtures.littleEndian(4096))
            let source = I2CIMUSource(bus: VMFixtures.i2cBus, address: 0x68, chip: .bmi160, accelRangeG: 8, gyroRangeDPS: 1000)
            let config = try source.start(requestedRate: 200)
            defer { source.stop() }
            #expect(config.rate == 200)
            let bus = try I2CBus(number: VMFixtures.i2cBus)
            #expect(try bus.readByte(address: 0x68, register: BMI160.Register.accelConfig) == 0x29)
            #expect(try bus.readByte(address: 0x68, register: BMI160.Register.accelRange) == 0x08)
            #expect(try bus.readByte(address: 0x68, register: BMI160.Register.gyroRange) == 0x01)
            let s = try Self.readOnce(source)
            #expect(abs(s.rotationRate.x - 10 * Double.pi / 180) < 1e-9)     // 328 / 32.8 LSB per °/s
            #expect(abs(s.specificForce.y + standardGravity) < 1e-9)          // −4096 / 4096 LSB per g
            #expect(abs(s.specificForce.z - standardGravity) < 1e-9)
        }

        @Test func mpu9250ReadsItsAK8963ThroughBypassInTheAccelerometerFrame() throws {
            try VMFixtures.poke(0x68, 0x75, [0x71])
            defer { try? VMFixtures.poke(0x68, 0x75, [0x68]) }
            let source = I2CIMUSource(bus: VMFixtures.i2cBus, address: 0x68, chip: .mpu9250)
            _ = try source.start(requestedRate: 100)
            defer { source.stop() }
            #expect(source.capabilities.sensors == .all)
            let bus = try I2CBus(number: VMFixtures.i2cBus)
            #expect(try bus.readByte(address: 0x68, register: MPU6050.Register.intPinConfig) == 0x12)    // BYPASS_EN
            #expect(try bus.readByte(address: 0x0C, register: AK8963.Register.control1) == 0x16)         // 16-bit, 100 Hz
            let s = try Self.readOnce(source)
            #expect(s.contents == .all)
            // Chip axes (100, 200, −300) LSB · 0.15 µT · ASA (1, 1.1875, 1) → accel frame (y, x, −z).
            #expect(abs(s.magneticField.x - 200 * 0.15 * 1.1875) < 1e-9)
            #expect(abs(s.magneticField.y - 100 * 0.15) < 1e-9)
            #expect(abs(s.magneticField.z - 300 * 0.15) < 1e-9)
        }
    }
}
