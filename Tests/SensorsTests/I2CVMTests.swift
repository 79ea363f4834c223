import Testing
import Foundation
@testable import Sensors
import MotionCore
import TestSupport

// MARK: Emulated-hardware fixtures (hardware/emulation/guest/fixtures.sh)

/// The devices the VM's fixture script created; read from its environment file.
enum VMFixtures {
    static let env = ProcessInfo.processInfo.environment
    /// True inside the test VM (`EDGEMOTION_VM=1`), where i2c-stub, gpio-sim and the BMI160 exist.
    static var active: Bool { env["EDGEMOTION_VM"] == "1" }
    static var i2cBus: Int { Int(env["EDGEMOTION_VM_I2C_BUS"] ?? "") ?? -1 }
    static var gpioChip: String { env["EDGEMOTION_VM_GPIO_CHIP"] ?? "" }
    static var gpioLabel: String { env["EDGEMOTION_VM_GPIO_LABEL"] ?? "" }
    static var gpioLine: String { env["EDGEMOTION_VM_GPIO_LINE"] ?? "" }
    static var gpioPull: String { env["EDGEMOTION_VM_GPIO_PULL"] ?? "" }
    static var iioDevice: String { env["EDGEMOTION_VM_IIO_DEVICE"] ?? "" }
    static var hrtimer: String { env["EDGEMOTION_VM_HRTIMER"] ?? "" }
    static var sysfsTrigger: String { env["EDGEMOTION_VM_SYSFS_TRIGGER"] ?? "" }

    /// Writes registers of an i2c-stub chip, even under a bound kernel driver (I2C_SLAVE_FORCE).
    static func poke(_ address: UInt16, _ register: UInt8, _ bytes: [UInt8]) throws {
        let bus = try I2CBus(number: i2cBus, preferSMBus: true)
        try bus.writeBlock(bytes, address: address, register: I2CRegister(register, "stub"), force: true)
    }

    /// Drives the gpio-sim line through its sysfs `pull` attribute (an edge when it changes).
    static func pull(up: Bool) {
        let fd = open(gpioPull, O_WRONLY)
        precondition(fd >= 0, "cannot open \(gpioPull)")
        let text = up ? "pull-up" : "pull-down"
        _ = text.withCString { write(fd, $0, strlen($0)) }
        close(fd)
    }

    static func bigEndian(_ v: Int16) -> [UInt8] { [UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)] }
    static func littleEndian(_ v: Int16) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
}

/// Every suite that needs the emulated devices lives under this one: the harness filters on its
/// name, the host run skips it, and its tests run one at a time (they share the stub and the line).
@Suite(.serialized, .enabled(if: VMFixtures.active, "needs the emulated devices; run hardware/emulation/run-vm-tests"), .ownThread)
enum VMTests {}

// MARK: Direct I2C on i2c-stub

extension VMTests {
    @Suite struct I2C {
        @Test func mpu6050ProbesConfiguresAndReadsThroughTheSMBusFallback() throws {
            try VMFixtures.poke(0x68, 0x3B, [0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x83, 0x00, 0x00, 0x00, 0x00])
            let source = I2CIMUSource(bus: VMFixtures.i2cBus, address: 0x68, chip: .mpu6050, accelRangeG: 2, gyroRangeDPS: 250)
            let config = try source.start(requestedRate: 100)
            defer { source.stop() }
            #expect(config.rate == 100)
            #expect(config.timing == .timer)
            // The configuration really reached the chip's registers.
            let bus = try I2CBus(number: VMFixtures.i2cBus)
            #expect(bus.transferMode == .smbusBlock)
            #expect(!bus.functionality.contains(.plainI2C))
            #expect(try bus.readByte(address: 0x68, register: MPU6050.Register.sampleRateDivider) == 9)
            #expect(try bus.readByte(address: 0x68, register: MPU6050.Register.accelConfig) == 0x00)
            #expect(try bus.readByte(address: 0x68, register: MPU6050.Register.gyroConfig) == 0x00)
            #expect(try bus.readByte(address: 0x68, register: MPU6050.Register.powerManagement1) == 0x01)

            var samples = [IMUSample](repeating: IMUSample(timestampNanos: 0, sequence: 0, contents: []), count: 1)
            let r = try samples.withUnsafeMutableBufferPointer { try source.read(into: $0, timeout: .seconds(1)) }
            #expect(r == .samples(1))
            #expect(abs(samples[0].specificForce.z - standardGravity) < 1e-9)
            #expect(samples[0].specificForce.x == 0)
            #expect(abs(samples[0].rotationRate.x - Double.pi / 180) < 1e-9)
            #expect(samples[0].contents == .inertial)
        }

        @Test func valuesWrittenIntoTheStubWhileRunningShowUpScaled() throws {
            let source = I2CIMUSource(bus: VMFixtures.i2cBus, address: 0x68, chip: .mpu6050, accelRangeG: 4, gyroRangeDPS: 2000)
            _ = try source.start(requestedRate: 50)
            defer { source.stop() }
            var buf = [IMUSample](repeating: IMUSample(timestampNanos: 0, sequence: 0, contents: []), count: 1)
            try VMFixtures.poke(0x68, 0x3B, VMFixtures.bigEndian(-8192) + VMFixtures.bigEndian(4096) + VMFixtures.bigEndian(8192))
            try VMFixtures.poke(0x68, 0x43, VMFixtures.bigEndian(164) + VMFixtures.bigEndian(-1640) + VMFixtures.bigEndian(0))
            _ = try buf.withUnsafeMutableBufferPointer { try source.read(into: $0, timeout: .seconds(1)) }
            // ±4 g: 8192 LSB/g; ±2000 °/s: 16.4 LSB/(°/s).
            #expect(abs(buf[0].specificForce.x + standardGravity) < 1e-9)
            #expect(abs(buf[0].specificForce.y - standardGravity / 2) < 1e-9)
            #expect(abs(buf[0].specificForce.z - standardGravity) < 1e-9)
            #expect(abs(buf[0].rotationRate.x - 10 * Double.pi / 180) < 1e-9)
            #expect(abs(buf[0].rotationRate.y + 100 * Double.pi / 180) < 1e-9)
            try VMFixtures.poke(0x68, 0x3B, VMFixtures.bigEndian(0) + VMFixtures.bigEndian(0) + VMFixtures.bigEndian(8192))
            _ = try buf.withUnsafeMutableBufferPointer { try source.read(into: $0, timeout: .seconds(1)) }
            #expect(buf[0].specificForce.x == 0)
        }

        @Test func timerPacedSamplesAreSpacedByThePeriodWithConsecutiveSequences() throws {
            let source = I2CIMUSource(bus: VMFixtures.i2cBus, address: 0x68, chip: .mpu6050)
            let config = try source.start(requestedRate: 50)
            defer { source.stop() }
            var buf = [IMUSample](repeating: IMUSample(timestampNanos: 0, sequence: 0, contents: []), count: 1)
            var stamps: [UInt64] = []
            var sequences: [UInt64] = []
            for _ in 0..<25 {
                let r = try buf.withUnsafeMutableBufferPointer { try source.read(into: $0, timeout: .seconds(1)) }
                #expect(r == .samples(1))
                stamps.append(buf[0].timestampNanos)
                sequences.append(buf[0].sequence)
            }
            #expect(config.rate == 50)
            let mean = Double(stamps.last! - stamps.first!) / Double(stamps.count - 1) / 1e6
            print("i2c timer pacing: mean period \(mean) ms (expected 20), missed \(source.missedSamples)")
            #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 })
            #expect(abs(mean - 20) < 4)
            #expect(sequences.last! == 24 + source.missedSamples)
        }

        @Test func aWrongWhoAmIIsRefusedNamingBusAddressRegisterAndWhatWasFound() throws {
            let source = I2CIMUSource(bus: VMFixtures.i2cBus, address: 0x6A, chip: .mpu6050)
            let error = #expect(throws: SensorError.self) { try source.start(requestedRate: 100) }
            #expect(error?.kind == .wrongDevice)
            let text = error?.description ?? ""
            #expect(text.contains("i2c-\(VMFixtures.i2cBus) 0x6a register 0x75 (WHO_AM_I)"))
            #expect(text.contains("expected 0x68 for mpu6050, found 0x70"))
            #expect(text.contains("mpu6500"))
        }

        @Test func anAbsentChipIsANackNamingBusAndAddress() throws {
            let source = I2CIMUSource(bus: VMFixtures.i2cBus, address: 0x50, chip: .mpu6050)
            let error = #expect(throws: SensorError.self) { try source.start(requestedRate: 100) }
            #expect(error?.kind == .io)
            #expect(error?.description.contains("i2c-\(VMFixtures.i2cBus) 0x50 register 0x75 (WHO_AM_I)") == true)
            #expect(error?.description.contains("not acknowledged") == true)
        }

        @Test func anAddressOwnedByAKernelDriverSaysToUseIIO() throws {
            let source = I2CIMUSource(bus: VMFixtures.i2cBus, address: 0x69, chip: .bmi160)
            let error = #expect(throws: SensorError.self) { try source.start(requestedRate: 100) }
            #expect(error?.description.contains("in use by a kernel driver") == true)
            #expect(error?.description.contains("source.type iio") == true)
        }
    }
}
